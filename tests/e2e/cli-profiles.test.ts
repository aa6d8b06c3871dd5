/**
 * `npm run cli -- profile create|list|update|remove` on both stores, against a server started as
 * `npm start` runs it with KEY_ENCRYPTION_KEY: an email profile with its mailbox (the id printed
 * last), a LinkedIn one, each flag's mistake in words with the command's usage, the mailbox
 * check's refusal before anything is saved, and the passwords never in the CLI's output, the
 * listing or the `profiles` tool's result.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bearer, callTool } from '../helpers/mcp-calls.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';
import { REPO_ROOT } from '../helpers/outreach.ts';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';

const CLI = [process.execPath, 'scripts/cli.mjs'];
const SMTP_PASSWORD = 'smtp-Hunter-42';
const IMAP_PASSWORD = 'imap-Hunter-43';
const SMTP = `smtp://nu%40example.com:${SMTP_PASSWORD}@smtp.example.com:587`;
const IMAP = `imaps://nu%40example.com:${IMAP_PASSWORD}@imap.example.com`;
const ID = /^prf_\w+$/;

for (const backend of await backends()) {
  describe(`cli profile commands on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let owner: { accountId: string; userId: string; email: string };
    /** Everything the CLI printed in this suite: no password may be in it. */
    let printed = '';
    before(async () => {
      database = await backend.create();
      server = await startTestServer({ ...database.env, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
      owner = await server.createAccount();
    });
    after(async () => {
      assert.ok(!printed.includes(SMTP_PASSWORD) && !printed.includes(IMAP_PASSWORD), 'a mailbox password was printed');
      await server?.close();
      await database?.close();
    });

    const cli = (...args: string[]) => {
      const run = spawnSync(CLI[0]!, [...CLI.slice(1), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...server.env }, encoding: 'utf8' });
      printed += run.stdout + run.stderr;
      return run;
    };
    const emailProfile = (...extra: string[]) =>
      cli(
        'profile',
        'create',
        '--account',
        owner.email,
        '--channel',
        'email',
        '--name',
        'Nu (email)',
        '--from',
        'Nu <nu@example.com>',
        '--smtp',
        SMTP,
        '--imap',
        IMAP,
        ...extra,
      );
    const profileIds = async () => (await server.admin.profiles.list(owner.accountId)).map((p) => p.id);

    test('create an email profile: its id printed last; listed with host, port, user and "password: set"', async () => {
      const run = emailProfile('--timezone', 'Europe/London', '--daily-limit', '20', '--no-check');
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '');
      const id = run.stdout.trim().split('\n').at(-1)!;
      assert.match(id, ID);
      assert.match(run.stdout, /^not checked \(--no-check\): SMTP smtp\.example\.com:587, IMAP imap\.example\.com:993\n/);

      const list = cli('profile', 'list', '--account', owner.email);
      assert.equal(list.status, 0, list.stderr);
      assert.ok(
        list.stdout.includes(
          `${id}  Nu (email)  email  active  Europe/London  20 a day\n` +
            '  from: Nu <nu@example.com>\n' +
            '  smtp: smtp.example.com:587 STARTTLS  user nu@example.com  password: set\n' +
            '  imap: imap.example.com:993 TLS  user nu@example.com  password: set\n',
        ),
        list.stdout,
      );
      const mailbox = await server.admin.profiles.mailbox(id);
      assert.equal(mailbox?.smtp.password, SMTP_PASSWORD, 'the password is kept whole, for sending');
    });

    test('the profiles tool lists it with the interface fields only', async () => {
      const token = await server.token(owner);
      const res = await postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
      assert.equal(res.status, 200, res.text);
      assert.ok(!res.text.includes(SMTP_PASSWORD) && !res.text.includes(IMAP_PASSWORD) && !res.text.includes('smtp.example.com'));
      const email = (res.json.result.structuredContent.profiles as Record<string, unknown>[]).find((p) => p.channel === 'email');
      assert.deepEqual(Object.keys(email!).sort(), ['channel', 'daily_limit', 'id', 'name', 'sent_today', 'status', 'timezone']);
    });

    test('the mailbox is checked before saving: refused in plain words, nothing created', async () => {
      const before = await profileIds();
      const run = cli(
        'profile',
        'create',
        '--account',
        owner.email,
        '--channel',
        'email',
        '--name',
        'Closed',
        '--from',
        'nu@example.com',
        '--smtp',
        `smtp://nu:${SMTP_PASSWORD}@127.0.0.1:1?tls=none`,
        '--imap',
        `imap://nu:${IMAP_PASSWORD}@127.0.0.1:1?tls=none`,
      );
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        'The mailbox check failed:\n' +
          '  SMTP: could not connect to 127.0.0.1:1: connection refused (is the port right, and the server running?)\n' +
          '  IMAP: could not connect to 127.0.0.1:1: connection refused (is the port right, and the server running?)\n' +
          'Fix the URL and try again, or save without checking with --no-check.\n',
      );
      assert.deepEqual(await profileIds(), before);
    });

    test('a LinkedIn profile needs no mailbox; update and remove it', async () => {
      const created = cli('profile', 'create', '--account', owner.email, '--channel', 'linkedin', '--name', 'Nu (LinkedIn 2)');
      assert.equal(created.status, 0, created.stderr);
      const id = created.stdout.trim().split('\n').at(-1)!;
      assert.match(id, ID);
      const updated = cli('profile', 'update', id, '--daily-limit', '7', '--timezone', 'Asia/Tokyo', '--name', 'Renamed');
      assert.equal(updated.status, 0, updated.stderr);
      assert.equal(updated.stdout, `updated profile ${id}\n`);
      const listed = cli('profile', 'list', '--account', owner.email).stdout;
      assert.ok(listed.includes(`${id}  Renamed  linkedin  active  Asia/Tokyo  7 a day\n`), listed);
      const removed = cli('profile', 'remove', id);
      assert.equal(removed.stdout, `removed profile ${id}\n`, removed.stderr);
      assert.ok(!(await profileIds()).includes(id));
    });

    test('update an email profile\'s SMTP: the new password is sealed, shown as "set"', async () => {
      const id = emailProfile('--no-check').stdout.trim().split('\n').at(-1)!;
      const run = cli('profile', 'update', id, '--smtp', `smtps://other:${SMTP_PASSWORD}-2@mail.example.org`, '--no-check');
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, `not checked (--no-check): SMTP mail.example.org:465\nupdated profile ${id}\n`);
      const row = await server.admin.db.selectFrom('profile_mailboxes').selectAll().where('profile_id', '=', id).executeTakeFirstOrThrow();
      assert.equal(JSON.parse(row.smtp_password).enc, 'A256GCM');
      assert.ok(cli('profile', 'list', '--account', owner.email).stdout.includes('  smtp: mail.example.org:465 TLS  user other  password: set\n'));
    });

    test('an email profile kept as disconnected gets a mailbox again by update, given whole; a part of one is refused in words first', async () => {
      const id = emailProfile('--no-check').stdout.trim().split('\n').at(-1)!;
      const token = await server.token(owner);
      const campaign = await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: id, name: 'Keeps the profile' }), bearer(token));
      assert.equal(campaign.status, 200, campaign.text);
      assert.equal(cli('profile', 'remove', id).status, 0);
      assert.equal(await server.admin.profiles.mailbox(id), undefined, 'removed with history: kept, its mailbox deleted');

      const partial = cli('profile', 'update', id, '--smtp', SMTP);
      assert.equal(partial.status, 1);
      assert.equal(
        partial.stderr,
        `Profile ${id} has no mailbox yet: connect one by giving all of it, --from "NAME <ADDRESS>", --smtp smtp[s]://USER:PASSWORD@HOST:PORT and --imap imap[s]://USER:PASSWORD@HOST:PORT\n`,
      );
      assert.equal(partial.stdout, '', 'refused before any server was checked');

      const whole = cli('profile', 'update', id, '--from', 'Nu <nu@example.com>', '--smtp', SMTP, '--imap', IMAP, '--no-check');
      assert.equal(whole.status, 0, whole.stderr);
      assert.equal(whole.stdout, `not checked (--no-check): SMTP smtp.example.com:587, IMAP imap.example.com:993\nupdated profile ${id}\n`);
      const mailbox = await server.admin.profiles.mailbox(id);
      assert.equal(mailbox?.imap.password, IMAP_PASSWORD);
      assert.ok(cli('profile', 'list', '--account', owner.email).stdout.includes(`${id}  Nu (email)  email  active  `), 'active again');
    });

    test("remove refuses the account's only profile, in words (the store tests cover a running campaign)", async () => {
      const alone = await server.createAccount();
      const [only] = alone.profileIds;
      const run = cli('profile', 'remove', only!);
      assert.equal(run.status, 1);
      assert.equal(run.stderr, `Profile ${only} is the account's only profile, and an account always has one: create another first\n`);
    });

    const mistakes: [string, string[], string][] = [
      ['no --channel', ['profile', 'create', '--account', 'x@example.com', '--name', 'N'], 'profile create needs --account, --channel and --name'],
      [
        'an unknown channel',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'fax', '--name', 'N'],
        '--channel must be email or linkedin, got "fax"',
      ],
      [
        'an email profile without --smtp',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'email', '--name', 'N', '--from', 'a@example.com', '--imap', IMAP],
        'an email profile needs its mailbox: --from "NAME <ADDRESS>", --smtp smtp[s]://USER:PASSWORD@HOST:PORT and --imap imap[s]://USER:PASSWORD@HOST:PORT',
      ],
      [
        'a bad --smtp URL',
        [
          'profile',
          'create',
          '--account',
          'x@example.com',
          '--channel',
          'email',
          '--name',
          'N',
          '--from',
          'a@example.com',
          '--smtp',
          `http://u:${SMTP_PASSWORD}@h`,
          '--imap',
          IMAP,
        ],
        '--smtp must start with smtp:// or smtps://, got http://; give smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://USER:PASSWORD@HOST:PORT (TLS)',
      ],
      [
        '--from not an address',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'email', '--name', 'N', '--from', 'Nu <nobody>', '--smtp', SMTP, '--imap', IMAP],
        '--from must be "NAME <ADDRESS>" with an email address, got "Nu <nobody>"',
      ],
      [
        'an unknown time zone',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'linkedin', '--name', 'N', '--timezone', 'Mars/Olympus'],
        '--timezone must be an IANA time zone such as Europe/London or America/New_York, got "Mars/Olympus"',
      ],
      [
        'a daily limit of 0',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'linkedin', '--name', 'N', '--daily-limit', '0'],
        '--daily-limit must be a whole number of messages a day, 1 or more, got "0"',
      ],
      [
        'a fractional daily limit on update',
        ['profile', 'update', 'prf_x', '--daily-limit', '2.5'],
        '--daily-limit must be a whole number of messages a day, 1 or more, got "2.5"',
      ],
      [
        'a mailbox on a LinkedIn profile',
        ['profile', 'create', '--account', 'x@example.com', '--channel', 'linkedin', '--name', 'N', '--smtp', SMTP],
        'a LinkedIn profile has no mailbox: --from, --smtp and --imap are for --channel email',
      ],
      [
        'update with nothing to change',
        ['profile', 'update', 'prf_x'],
        'profile update needs something to change: --name, --from, --smtp, --imap, --timezone or --daily-limit',
      ],
      ['remove without an id', ['profile', 'remove'], 'profile remove needs the profile id: npm run cli -- profile remove PROFILE_ID'],
      ['list without --account', ['profile', 'list'], 'profile list needs --account'],
    ];
    for (const [what, args, message] of mistakes)
      test(`${what}: "${message.slice(0, 40)}…" and the command's usage`, () => {
        const run = cli(...args);
        assert.equal(run.status, 1);
        assert.ok(run.stderr.startsWith(`${message}\nusage:\n  npm run cli -- ${args.slice(0, 2).join(' ')} `), run.stderr);
        assert.equal(run.stdout, '');
      });

    test('an unknown --account is named', () => {
      const run = cli('profile', 'list', '--account', 'nobody@example.com');
      assert.equal(run.status, 1);
      assert.match(run.stderr, /^No user with the email nobody@example.com; --account takes the email of one of the account's users\nusage:/);
    });
  });
}
