/**
 * The admin CLI's help: `help`, `--help` and `<command> --help` print the usage and exit 0; a wrong
 * option is named plainly; a command used wrongly prints its own usage, not every command's, and an
 * email no user has is told how to get one. And
 * the CLI's bundle (scripts/cli-bundle.mjs): built by the first command in a new copy, rebuilt
 * after a source changed, never by a command whose sources did not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/server.ts';
import { copyProject } from '../helpers/project-copy.ts';

const cli = (...args: string[]) => spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { cwd: REPO_ROOT, encoding: 'utf8' });

test('help, --help and -h print every command and exit 0, without a store or settings', () => {
  for (const args of [['help'], ['--help'], ['-h']]) {
    const run = cli(...args);
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, /^usage:\n/);
    for (const command of ['account create', 'token', 'config', 'grants list', 'grants revoke', 'keys rotate', 'backup', 'password reset'])
      assert.ok(run.stdout.includes(`npm run cli -- ${command}`), `${args.join(' ')} lists ${command}`);
    assert.equal(run.stderr, '');
  }
});

test('<command> --help and help <command> print that command only, exit 0', () => {
  for (const args of [
    ['token', '--help'],
    ['help', 'token'],
  ]) {
    const run = cli(...args);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, 2, run.stdout);
    assert.match(run.stdout, /npm run cli -- token --email EMAIL/);
  }
  assert.match(cli('grants', 'revoke', '--help').stdout, /grants revoke --id GRANT_ID/);
});

test('an unknown option or an option without its value is named plainly, exit 1', () => {
  const unknown = cli('token', '--emial', 'a@example.com');
  assert.equal(unknown.status, 1);
  assert.equal(unknown.stderr.trim(), 'Unknown option --emial; `npm run cli -- help` lists the commands and their options');
  const bare = cli('token', '--email');
  assert.equal(bare.status, 1);
  assert.equal(bare.stderr.trim(), '--email needs a value; `npm run cli -- help` lists the commands and their options');
});

test("a mistake in one command prints that command's usage only, exit 1; an unknown command lists them all", () => {
  // These open the store before they find the mistake: an empty one of their own.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-cli-usage-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' };
  const inStore = (...args: string[]) => spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { cwd: REPO_ROOT, encoding: 'utf8', env });
  try {
    for (const [args, message, usage] of [
      [['token'], 'token needs --email', /^ {2}npm run cli -- token --email EMAIL/],
      [['password', 'reset'], 'password reset needs --email', /^ {2}npm run cli -- password reset --email EMAIL/],
      [['backup'], 'backup needs a file: npm run cli -- backup FILE', /^ {2}npm run cli -- backup FILE/],
      [
        ['grants', 'list', '--email', 'nobody@example.com'],
        'No user with the email nobody@example.com; create one with `account create`',
        /^ {2}npm run cli -- grants list --email EMAIL/,
      ],
      // A script that asks for the demo account's token as soon as the port answers may be a moment early.
      [
        ['token', '--email', 'demo@example.com'],
        'No user with the email demo@example.com yet: `npm start` makes the demo account on this store just after it starts listening (on 127.0.0.1); start it first, or create a user with `account create`',
        /^ {2}npm run cli -- token --email EMAIL/,
      ],
    ] as const) {
      const run = inStore(...args);
      assert.equal(run.status, 1, run.stderr);
      const [first, heading, ...lines] = run.stderr.trim().split('\n');
      assert.equal(first, message);
      assert.equal(heading, 'usage:');
      assert.equal(lines.length, 1, `${args.join(' ')}: its own usage only:\n${run.stderr}`);
      assert.match(lines[0]!, usage);
    }
    const unknown = inStore('tokne');
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^Unknown command "tokne"\nusage:\n/);
    for (const command of ['account create', 'token', 'config', 'grants list', 'keys rotate', 'backup', 'password reset'])
      assert.ok(unknown.stderr.includes(`npm run cli -- ${command}`), `an unknown command lists ${command}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the CLI runs from its bundle: built by the first command, rebuilt after its sources change, and only then', () => {
  const copy = copyProject();
  const inCopy = (...args: string[]) => spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { cwd: copy.dir, encoding: 'utf8' });
  const built = /^\(built the CLI, dist\/cli\.js, in \d+ ms: its sources changed since the last build\)\n$/;
  try {
    const first = inCopy('help', 'token');
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, built, 'a new copy has no dist/: the first command builds the CLI');
    assert.match(first.stdout, /npm run cli -- token --email EMAIL/);
    const again = inCopy('help', 'token');
    assert.deepEqual([again.status, again.stderr, again.stdout], [0, '', first.stdout]);

    // An edit of the CLI's source (its usage text) reaches the next command.
    const source = path.join(copy.dir, 'app/cli.ts');
    writeFileSync(source, readFileSync(source, 'utf8').replace('npm run cli -- token --email EMAIL', 'npm run cli -- token --email ADDRESS'));
    const edited = inCopy('help', 'token');
    assert.equal(edited.status, 0, edited.stderr);
    assert.match(edited.stderr, built);
    assert.match(edited.stdout, /npm run cli -- token --email ADDRESS/);
  } finally {
    copy.cleanup();
  }
});
