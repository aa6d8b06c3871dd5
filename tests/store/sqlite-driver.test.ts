/**
 * The embedded store's driver (app/store/db/sqlite-driver.ts) on a real SQLite file: what Kysely and
 * the store rely on of it. Values go in as an array; rows come out as ordinary objects; a statement says up front whether it returns
 * rows; a failure names SQLite's result code as SQLite does (the store tells "written first" and
 * "the file cannot be opened" apart by those names); statements are prepared once per SQL text;
 * transactions show; parameters are written `+?` (SQLite 3.54 would otherwise plan a joined, sorted or
 * limited statement again on every run) with the same answers; and loading it prints nothing (Node 22 warns that node:sqlite is
 * experimental; an operator cannot act on that, so the driver leaves that one warning out).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { isUniqueViolation } from '../../app/store/db/db-errors.ts';
import { describeStoreOutage } from '../../app/store/db/outage.ts';
import { execute, openSqlite, plusParameters, sqliteCodeName } from '../../app/store/db/sqlite-driver.ts';

describe('the SQLite driver', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-driver-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const { connection, database } = openSqlite(path.join(dir, 'test.sqlite'));
  execute(database, 'create table people (id text primary key, name text not null unique, age integer)');

  test('takes values as an array, and answers rows and changes as Kysely expects', () => {
    const insert = connection.prepare('insert into people (id, name, age) values (?, ?, ?)');
    assert.equal(insert.reader, false);
    const result = insert.run(['p1', 'Ada', 36]);
    assert.equal(Number(result.changes), 1);
    assert.equal(Number(result.lastInsertRowid), 1);
    const select = connection.prepare('select id, name, age from people where id = ?');
    assert.equal(select.reader, true);
    // Ordinary objects (node:sqlite's own rows have no prototype), from all() and iterate() alike.
    assert.deepStrictEqual(select.all(['p1']), [{ id: 'p1', name: 'Ada', age: 36 }]);
    assert.deepStrictEqual([...select.iterate(['p1'])], [{ id: 'p1', name: 'Ada', age: 36 }]);
    assert.deepStrictEqual(connection.prepare('select 1 as n, 2 as n').all([]), [{ n: 2 }]);
    // RETURNING makes a writing statement a reader: Kysely must read its rows.
    assert.equal(connection.prepare('insert into people (id, name) values (?, ?) returning id').reader, true);
  });

  test('prepares each SQL text once', () => {
    const sql = 'select count(*) as n from people';
    assert.equal(connection.prepare(sql), connection.prepare(sql));
  });

  test('names a unique or primary-key violation as SQLite does, which the store reads as "written first"', () => {
    const insert = connection.prepare('insert into people (id, name) values (?, ?)');
    insert.run(['p2', 'Grace']);
    for (const [values, code] of [
      [['p2', 'Someone else'], 'SQLITE_CONSTRAINT_PRIMARYKEY'],
      [['p3', 'Grace'], 'SQLITE_CONSTRAINT_UNIQUE'],
    ] as const) {
      assert.throws(
        () => insert.run(values),
        (err: unknown) => (err as { code?: unknown }).code === code && isUniqueViolation(err),
      );
    }
    assert.throws(() => connection.prepare('insert into people (id) values (?)').run(['p4']), { code: 'SQLITE_CONSTRAINT_NOTNULL' });
  });

  test('names a file it cannot open, which the store reads as an outage', () => {
    assert.throws(
      () => openSqlite(path.join(dir, 'no-such-folder', 'x.sqlite')),
      (err: unknown) => (err as { code?: unknown }).code === 'SQLITE_CANTOPEN' && describeStoreOutage(err) !== undefined,
    );
    assert.equal(sqliteCodeName(5), 'SQLITE_BUSY');
    assert.equal(sqliteCodeName(10 | (3 << 8)), 'SQLITE_IOERR');
  });

  test('shows an open transaction', () => {
    assert.equal(connection.inTransaction, false);
    execute(database, 'begin immediate');
    assert.equal(connection.inTransaction, true);
    execute(database, 'rollback');
    assert.equal(connection.inTransaction, false);
  });

  test('loads without printing a warning', () => {
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { openSqlite } from ${JSON.stringify(path.resolve('app/store/db/sqlite-driver.ts'))}; openSqlite(':memory:');`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stderr, '');
  });
});

describe('plusParameters: every ? a +?, nothing else changed', () => {
  test('each positional parameter, numbered ones too, in every clause', () => {
    assert.equal(
      plusParameters('select * from t where a = ? and b in (?, ?) order by c limit ?'),
      'select * from t where a = +? and b in (+?, +?) order by c limit +?',
    );
    assert.equal(plusParameters('insert into t (a, b) values (?1, ?2)'), 'insert into t (a, b) values (+?1, +?2)');
    assert.equal(plusParameters('select 1'), 'select 1');
  });

  test('a ? inside a string, a quoted name or a comment is left alone (a doubled quote does not end the string)', () => {
    assert.equal(
      plusParameters(`select 'it''s ?', "col?", [x?], \`y?\` from t where a = ? -- why?\n and b = ? /* c? */ and d = ?`),
      `select 'it''s ?', "col?", [x?], \`y?\` from t where a = +? -- why?\n and b = +? /* c? */ and d = +?`,
    );
    assert.equal(plusParameters("select 'unclosed ?"), "select 'unclosed ?");
    assert.equal(plusParameters('select ? -- to the end ?'), 'select +? -- to the end ?');
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-plus-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const { connection, database } = openSqlite(path.join(dir, 'plus.sqlite'));
  execute(
    database,
    `create table t (id text primary key, n integer not null, day text);
    create index t_n on t (n);
    insert into t values ('a', 1, '2026-11-27'), ('b', 2, '2026-11-28'), ('c', 3, null), ('d', 10, '2026-11-28')`,
  );

  test('the same answers as bare parameters: comparisons with the column affinity applied, IN, LIMIT, NULL, writes', () => {
    // A text '2' compared with an integer column matches 2, as it does with a bare ?.
    assert.deepStrictEqual(connection.prepare('select id from t where n = ?').all(['2']), [{ id: 'b' }]);
    assert.deepStrictEqual(connection.prepare('select id from t where day in (?, ?) order by n desc limit ?').all(['2026-11-27', '2026-11-28', 2]), [
      { id: 'd' },
      { id: 'b' },
    ]);
    assert.deepStrictEqual(connection.prepare('select count(*) as k from t where day is ?').all([null]), [{ k: 1 }]);
    const blob = new Uint8Array([0, 1, 2]);
    connection.prepare('insert into t (id, n, day) values (?, ?, ?)').run(['e', 5, blob as unknown as string]);
    assert.deepStrictEqual(connection.prepare('select n, day from t where id = ?').all(['e']), [{ n: 5, day: blob }]);
  });

  test('an index still serves a column compared with +?', () => {
    const plan = database.prepare(`explain query plan ${plusParameters('select id from t where n = ?')}`).all(1) as { detail: string }[];
    assert.match(plan.map((r) => r.detail).join(' '), /USING (COVERING )?INDEX t_n \(n=\?\)/);
  });
});
