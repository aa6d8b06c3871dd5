/**
 * pipelined(): on PostgreSQL every write starts when issued; on SQLite each starts after the one
 * before, and none after a failure. Whatever happens, nothing issued is still running when it
 * returns or throws (a statement left queued would run after the transaction's rollback), and the
 * first failure, or the work's own error, is the one thrown. pgArray(): the driver's escaping.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pgArray } from '../../../app/store/pg-arrays.ts';
import { pipelined } from '../../../app/store/pipelined.ts';

/** A write that records when it starts and ends, ending after `ms` (or failing with `error`). */
function recorder() {
  const events: string[] = [];
  const write =
    (name: string, ms: number, error?: Error): (() => Promise<void>) =>
    async () => {
      events.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`end ${name}`);
      if (error) throw error;
    };
  return { events, write };
}

describe('pipelined', () => {
  test('on PostgreSQL every write starts when issued, and all have ended when it returns', async () => {
    const { events, write } = recorder();
    await pipelined('postgres', (issue) => {
      issue(write('a', 20));
      issue(write('b', 5));
      events.push('built');
    });
    assert.deepEqual(events, ['start a', 'start b', 'built', 'end b', 'end a']);
  });

  test('on SQLite each write starts when the one before has ended, and none after a failure', async () => {
    const { events, write } = recorder();
    await assert.rejects(
      pipelined('sqlite', (issue) => {
        issue(write('a', 10));
        issue(write('b', 1, new Error('b failed')));
        issue(write('c', 1));
        events.push('built');
      }),
      /b failed/,
    );
    assert.deepEqual(events, ['built', 'start a', 'end a', 'start b', 'end b']);
  });

  test('a failed write is thrown only after every other write has ended, and the first failure wins', async () => {
    const { events, write } = recorder();
    await assert.rejects(
      pipelined('postgres', (issue) => {
        issue(write('fails first', 1, new Error('first')));
        issue(write('slow', 30));
        issue(write('fails later', 10, new Error('later')));
      }),
      /first/,
    );
    assert.ok(events.includes('end slow'), 'the slow write ended before the failure was thrown');
  });

  test("the work's own error is thrown after the writes issued before it have ended, with no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { events, write } = recorder();
      await assert.rejects(
        pipelined('postgres', async (issue) => {
          issue(write('fails', 1, new Error('write failed')));
          issue(write('slow', 20));
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new Error('rendering failed');
        }),
        /rendering failed/,
      );
      assert.ok(events.includes('end slow'));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('pgArray', () => {
  test('quotes every element, escapes backslash and double quote, writes null as NULL', () => {
    assert.equal(pgArray([]), '{}');
    assert.equal(
      pgArray(['a', null, 'NULL', 'x,y', '{z}', 'say "hi"', 'back\\slash', -5, undefined]),
      '{"a",NULL,"NULL","x,y","{z}","say \\"hi\\"","back\\\\slash","-5",NULL}',
    );
  });
});
