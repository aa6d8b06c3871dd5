/**
 * The bench's PostgreSQL round-trip counter (bench/lib/pg-round-trips.ts), which part (h) reports
 * per tools/call: a proxy that counts what makes the server answer and the client wait. A query
 * without parameters, one with, and a transaction of three statements are five round trips;
 * connecting is none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { countRoundTrips } from '../../bench/lib/pg-round-trips.ts';
import { createPostgresDatabase, postgresBackend } from '../helpers/databases.ts';

const { skip } = await postgresBackend();

test('round trips are counted one per query, whatever the protocol the driver speaks', { skip }, async () => {
  const database = await createPostgresDatabase();
  const counter = await countRoundTrips(database.url);
  const client = new pg.Client({ connectionString: counter.url });
  try {
    await client.connect();
    assert.equal(counter.count(), 0, 'the start-up is no query');
    await client.query('select 1');
    await client.query('select $1::int as n', [2]);
    await client.query('begin');
    await client.query('select $1::text', ['x'.repeat(100_000)]);
    await client.query('commit');
    assert.equal(counter.count(), 5);
  } finally {
    await client.end();
    await counter.close();
    await database.drop();
  }
});
