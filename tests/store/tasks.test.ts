/**
 * Tasks of the MCP tasks extension on both back-ends, driven through the runtime's Tasks: two
 * Tasks objects on one database play two instances (one runs the work; the other answers
 * tasks/get, takes tasks/update and tasks/cancel), as a load balancer would spread the requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SqlTaskStore } from '../../app/store/tasks.ts';
import { protocolError } from '../../runtime/errors.ts';
import { Tasks } from '../../runtime/tasks.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const quietLogger = { error: () => undefined };
const CALLER = 'usr_1|acc_1';
/** The protocol checks the token's scopes against the task's tool (tests/framework/tasks.test.ts); here every tool is allowed. */
const anyTool = () => undefined;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the task did not get there in 4 s');
}

for (const backend of await backends()) {
  describe(`tasks on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let runner: Tasks;
    let other: Tasks;
    before(async () => {
      database = await backend.create();
      runner = new Tasks(new SqlTaskStore(database.db), { ttlMs: 60_000, pollIntervalMs: 20, logger: quietLogger });
      other = new Tasks(new SqlTaskStore(database.db), { ttlMs: 60_000, pollIntervalMs: 20, logger: quietLogger });
    });
    after(async () => database.close());

    const get = async (id: string) => JSON.parse(await other.get(id, CALLER, anyTool));

    test('working, then a question answered through another instance, then the result', async () => {
      const created = JSON.parse(
        await runner.start(CALLER, 'tool', async ({ ask }) => {
          const answer = (await ask('elicitation/create', { message: 'Sure?' })) as { action: string };
          return JSON.stringify({ content: [{ type: 'text', text: `answer: ${answer.action}` }] });
        }),
      );
      assert.equal(created.resultType, 'task');
      assert.equal(created.status, 'working');
      const waiting = await until(
        () => get(created.taskId),
        (t) => t.status === 'input_required',
      );
      assert.deepEqual(waiting.inputRequests, { 'input-1': { method: 'elicitation/create', params: { message: 'Sure?' } } });
      assert.equal(await other.update(created.taskId, CALLER, anyTool, { 'input-9': { action: 'decline' }, 'input-1': { action: 'accept' } }), '{}');
      const done = await until(
        () => get(created.taskId),
        (t) => t.status === 'completed',
      );
      assert.deepEqual(done.result, { content: [{ type: 'text', text: 'answer: accept' }] });
      assert.equal(done.inputRequests, undefined);
    });

    test("cancelled through another instance: the status says so and the work's late result does not overwrite it", async () => {
      // The runner's store, watched: when the late result has been handled (the runner read the
      // task after the work ended, and finished any write it began), the status is final.
      const store = new SqlTaskStore(database.db);
      let readsAfterRelease = 0;
      let released = false;
      const writes: Promise<void>[] = [];
      const watched = new Tasks(
        {
          create: (task) => store.create(task),
          get: async (id) => {
            const task = await store.get(id);
            if (released) readsAfterRelease++;
            return task;
          },
          update: (id, patch) => {
            const write = store.update(id, patch);
            writes.push(write);
            return write;
          },
        },
        { ttlMs: 60_000, pollIntervalMs: 20, logger: quietLogger },
      );
      let release!: () => void;
      const created = JSON.parse(
        await watched.start(CALLER, 'tool', async () => {
          await new Promise<void>((r) => (release = r));
          return JSON.stringify({ content: [] });
        }),
      );
      assert.equal(await other.cancel(created.taskId, CALLER, anyTool), '{}');
      released = true;
      release();
      await until(
        async () => readsAfterRelease,
        (n) => n > 0,
      );
      await new Promise((r) => setImmediate(r));
      await Promise.all(writes);
      assert.equal((await get(created.taskId)).status, 'cancelled');
    });

    test('a JSON-RPC error fails the task with it; another caller cannot see the task', async () => {
      const created = JSON.parse(await runner.start(CALLER, 'tool', async () => Promise.reject(protocolError(-32602, 'bad'))));
      const failed = await until(
        () => get(created.taskId),
        (t) => t.status === 'failed',
      );
      assert.deepEqual(failed.error, { code: -32602, message: 'bad' });
      await assert.rejects(other.get(created.taskId, 'usr_2|acc_2', anyTool), /Task not found/);
      await assert.rejects(other.get('no-such-task', CALLER, anyTool), /Task not found/);
    });

    test('expired tasks are not found and housekeeping deletes them', async () => {
      const store = new SqlTaskStore(database.db);
      let now = Date.parse('2026-11-24T10:00:00.000Z');
      const short = new Tasks(store, { ttlMs: 1_000, pollIntervalMs: 20, logger: quietLogger, now: () => now });
      const created = JSON.parse(await short.start(CALLER, 'tool', async () => '{"content":[]}'));
      now += 1_001;
      await assert.rejects(short.get(created.taskId, CALLER, anyTool), /Task not found/);
      assert.ok((await store.deleteExpired(new Date(now))) >= 1);
      assert.equal(await store.get(created.taskId), undefined);
    });
  });
}
