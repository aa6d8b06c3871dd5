/**
 * The admin CLI's help: `help`, `--help` and `<command> --help` print the usage and exit 0; a wrong
 * option is named plainly; a command used wrongly prints its own usage, not every command's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/server.ts';

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
