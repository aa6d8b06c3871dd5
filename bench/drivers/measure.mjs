/**
 * One SQLite driver's cost per read, in this process alone: `node measure.mjs node:sqlite`,
 * `node measure.mjs node:sqlite-arrays` (rows read as arrays and made objects by a function
 * compiled per statement, and parameters written `+?`, as app/store/db/sqlite-driver.ts does) or `node measure.mjs <folder of a
 * better-sqlite3 package>`. Prints one JSON line: µs per call of
 * each read, the best of three rounds. The reads are the shapes the store runs on every tool call
 * (an in-memory database: the driver's cost, not the disk's), each statement prepared once.
 */
import { createRequire } from 'node:module';

const driver = process.argv[2];
const ITERATIONS = Number(process.env.BENCH_DRIVER_ITERATIONS ?? 200_000);

const { exec, prepare, version } = open(driver);
exec(`
  create table profiles (id text primary key, account_id text not null, name text not null, channel text not null,
    status text not null, timezone text not null, daily_limit integer not null, created_at text not null);
  create index profiles_account on profiles (account_id, created_at);
  create table usage (profile_id text not null, day text not null, sent integer not null, primary key (profile_id, day));
  create table leads (id text primary key, campaign_id text not null, first_name text, last_name text, company text,
    email text, position integer not null, status text not null, step integer not null, created_at text not null);
  create index leads_campaign on leads (campaign_id, position);
`);
exec('begin');
for (let a = 0; a < 1000; a++) {
  for (let i = 0; i < 2; i++) {
    exec(`insert into profiles values ('p${a}_${i}', 'acc${a}', 'Profile ${i} of account ${a}', 'email', 'active', 'Europe/Berlin', 50, '2026-11-2${i}T00:00:00Z');
      insert into usage values ('p${a}_${i}', '2026-11-28', ${i})`);
  }
}
for (let c = 0; c < 20; c++) {
  for (let i = 0; i < 60; i++) {
    exec(
      `insert into leads values ('l${c}_${i}', 'c${c}', 'Ada${i}', 'Lovelace', 'Analytical Engines Ltd', 'ada${i}@example.com', ${i}, 'active', 1, '2026-11-28T00:00:00Z')`,
    );
  }
}
exec('commit');

const reads = {
  'primary-key read, 1 row': [prepare('select * from profiles where id = ?'), (i) => [`p${i % 1000}_1`]],
  'indexed select, 2 rows': [prepare('select id, name, channel, status from profiles where account_id = ? order by created_at'), (i) => [`acc${i % 1000}`]],
  'profiles join, 2 rows': [
    prepare(
      'select p.id, p.name, p.channel, p.status, p.timezone, p.daily_limit, u.day, u.sent from profiles p left join usage u on u.profile_id = p.id and u.day in (?, ?, ?) where p.account_id = ? order by p.created_at, p.name',
    ),
    (i) => ['2026-11-27', '2026-11-28', '2026-11-29', `acc${i % 1000}`],
  ],
  'page of 50 rows': [prepare('select * from leads where campaign_id = ? order by position limit 50'), (i) => [`c${i % 20}`]],
};

const result = { driver, version, node: process.version, reads: {} };
for (const [name, [all, values]] of Object.entries(reads)) {
  const iterations = name.startsWith('page') ? ITERATIONS / 10 : ITERATIONS;
  const rounds = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < iterations / 10; i++) all(values(i));
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) all(values(i));
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / iterations);
  }
  result.reads[name] = Math.min(...rounds);
}
console.log(JSON.stringify(result));

/** The driver's exec and prepare, with every statement's values passed as that driver takes them. */
function open(which) {
  if (which.startsWith('node:sqlite')) {
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
    const db = new DatabaseSync(':memory:');
    const arrays = which === 'node:sqlite-arrays';
    return {
      version: `node:sqlite${arrays ? ', rows built in JavaScript' : ''} (SQLite ${db.prepare('select sqlite_version() as v').get().v})`,
      exec: (sql) => db.exec(sql),
      prepare: (sql) => {
        // As the store's driver writes them, parameters are `+?` (app/store/db/sqlite-driver.ts,
        // plusParameters: SQLite 3.54 plans a joined, sorted or limited statement on a bare `?`
        // again on every run once node:sqlite clears its bindings).
        const statement = db.prepare(arrays ? sql.replace(/\?/g, '+?') : sql);
        if (!arrays) return (values) => statement.all(...values);
        statement.setReturnArrays(true);
        const columns = statement.columns().map((column, i) => `${JSON.stringify(column.name)}: r[${i}]`);
        const row = new Function('r', `return { ${columns.join(', ')} };`);
        return (values) => {
          const rows = statement.all(...values);
          for (let i = 0; i < rows.length; i++) rows[i] = row(rows[i]);
          return rows;
        };
      },
    };
  }
  const Database = createRequire(`${which}/`)(which);
  const db = new Database(':memory:');
  const { version } = createRequire(`${which}/`)(`${which}/package.json`);
  return {
    version: `better-sqlite3 ${version}`,
    exec: (sql) => db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return (values) => statement.all(values);
    },
  };
}
