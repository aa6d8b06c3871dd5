/**
 * How `cli account create` gets the new user's password: typed twice at a prompt that shows
 * nothing (driven through a real pseudo-terminal, `script`), from stdin with --password-stdin, or
 * from --password with a warning; without a terminal and without either option, a clear error.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../helpers/outreach.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const CLI = [process.execPath, 'scripts/cli.mjs'];
const hasScript = spawnSync('script', ['--version']).status === 0;
let counter = 0;
const newEmail = () => `cli-password-${process.pid}-${++counter}@example.com`;

describe('cli account create: the password', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  const cli = (args: string[], input?: string) =>
    spawnSync(CLI[0]!, [...CLI.slice(1), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...server.env },
      encoding: 'utf8',
      ...(input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] } : { input }),
    });

  /**
   * Runs the command in a pseudo-terminal (util-linux `script`) and types each answer once the
   * prompt before it shows; returns everything the terminal showed, and the exit code.
   */
  function inTerminal(args: string[], answers: { prompt: string; typed: string }[]): Promise<{ screen: string; code: number | null }> {
    const command = [...CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let next = 0;
    let shownUpTo = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      screen += chunk;
      const answer = answers[next];
      const at = answer ? screen.indexOf(answer.prompt, shownUpTo) : -1;
      if (answer && at >= 0) {
        shownUpTo = at + answer.prompt.length;
        next++;
        child.stdin.write(`${answer.typed}\r`);
      }
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        child.stdin.end();
        resolve({ screen, code });
      });
    });
  }

  test('typed twice at a prompt that shows nothing', { skip: !hasScript && 'util-linux `script` is missing' }, async () => {
    const email = newEmail();
    const password = 'typed-at-the-prompt-9';
    const run = await inTerminal(
      ['account', 'create', '--name', 'Prompted', '--email', email],
      [
        { prompt: 'New password: ', typed: password },
        { prompt: 'The same password again: ', typed: password },
      ],
    );
    assert.equal(run.code, 0, run.screen);
    assert.match(run.screen, /acc_\w+/, 'prints the account id');
    assert.ok(!run.screen.includes(password), `the password was shown: ${run.screen}`);
    assert.ok(await server.admin.accounts.verifyCredentials(email, password), 'the typed password signs in');
  });

  test('two different passwords at the prompt: nothing is created', { skip: !hasScript && 'util-linux `script` is missing' }, async () => {
    const email = newEmail();
    const run = await inTerminal(
      ['account', 'create', '--name', 'Mistyped', '--email', email],
      [
        { prompt: 'New password: ', typed: 'first-password-1' },
        { prompt: 'The same password again: ', typed: 'second-password-2' },
      ],
    );
    assert.equal(run.code, 1, run.screen);
    assert.match(run.screen, /The two passwords differ; run the command again/);
    assert.equal(await server.admin.accounts.findUserByEmail(email), undefined);
  });

  test('without a terminal and without --password-stdin: a clear error, nothing created', async () => {
    const email = newEmail();
    const run = cli(['account', 'create', '--name', 'No terminal', '--email', email]);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^account create needs a password: run it in a terminal to type it at a prompt, or pipe it in with --password-stdin\n/);
    assert.equal(await server.admin.accounts.findUserByEmail(email), undefined);
  });

  test('--password-stdin reads the first line of stdin; --password works and warns', async () => {
    const piped = newEmail();
    const fromStdin = cli(['account', 'create', '--name', 'Piped', '--email', piped, '--password-stdin'], 'piped-password-3\n');
    assert.equal(fromStdin.status, 0, fromStdin.stderr);
    assert.equal(fromStdin.stderr, '');
    assert.ok(await server.admin.accounts.verifyCredentials(piped, 'piped-password-3'));

    const onCommandLine = newEmail();
    const fromArgs = cli(['account', 'create', '--name', 'Visible', '--email', onCommandLine, '--password', 'visible-password-4']);
    assert.equal(fromArgs.status, 0, fromArgs.stderr);
    assert.match(fromArgs.stderr, /^Warning: a password on the command line is visible to other users of this machine \(ps\)/);
    assert.ok(await server.admin.accounts.verifyCredentials(onCommandLine, 'visible-password-4'));
  });
});
