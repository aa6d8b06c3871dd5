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
      // The runner's store, watched: when the late result's write has been tried (it is refused:
      // the task ended), the status is final.
      const store = new SqlTaskStore(database.db);
      let released = false;
      const lateWrites: Promise<boolean>[] = [];
      const watched = new Tasks(
        {
          create: (task) => store.create(task),
          get: (id) => store.get(id),
          update: (id, patch) => {
            const write = store.update(id, patch);
            if (released) lateWrites.push(write);
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
        async () => lateWrites.length,
        (n) => n > 0,
      );
      assert.deepEqual(await Promise.all(lateWrites), [false], 'the late result is not written');
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

    test('a task whose instance stopped renewing its lease is failed by the next instance that reads it, and the late result is dropped', async () => {
      const store = new SqlTaskStore(database.db);
      // The instance running the task "dies": from then on none of its writes reaches the store.
      let dead = false;
      const dying = new Tasks(
        { create: (task) => store.create(task), get: (id) => store.get(id), update: async (id, patch) => (dead ? true : store.update(id, patch)) },
        { ttlMs: 60_000, pollIntervalMs: 20, leaseMs: 400, logger: quietLogger },
      );
      let finishWork!: () => void;
      const created = JSON.parse(
        await dying.start(CALLER, 'tool', async () => {
          await new Promise<void>((resolve) => (finishWork = resolve));
          return JSON.stringify({ content: [{ type: 'text', text: 'late' }] });
        }),
      );
      // Alive: the lease is renewed, so the task stays under way past its first lease.
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal((await get(created.taskId)).status, 'working');
      dead = true;
      const diedAt = Date.now();
      const failed = await until(
        () => get(created.taskId),
        (t) => t.status === 'failed',
      );
      const after = Date.now() - diedAt;
      assert.ok(after < 1_000, `failed ${after} ms after its instance stopped; the lease is 400 ms`);
      assert.deepEqual(failed.error, {
        code: -32603,
        message: `Task ${created.taskId} failed: the server instance running tool stopped before it finished; call tool again`,
      });
      assert.equal(failed.statusMessage, 'The server instance running this task stopped before it finished');
      dead = false;
      finishWork();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await get(created.taskId)).status, 'failed', 'a late result does not overwrite the failure');
    });

    test("a task whose instance died is failed by another instance's sweep, with nobody reading it; a live one is left alone", async () => {
      const store = new SqlTaskStore(database.db);
      let dead = false;
      const dying = new Tasks(
        { create: (task) => store.create(task), get: (id) => store.get(id), update: async (id, patch) => (dead ? true : store.update(id, patch)) },
        { ttlMs: 60_000, pollIntervalMs: 20, leaseMs: 400, logger: quietLogger },
      );
      const live = new Tasks(store, { ttlMs: 60_000, pollIntervalMs: 20, leaseMs: 400, logger: quietLogger });
      const sweepers = [0, 1].map(() => new Tasks(store, { ttlMs: 60_000, pollIntervalMs: 20, leaseMs: 400, logger: quietLogger }));
      const forever = async () => new Promise<string>(() => undefined);
      const abandonedTask = JSON.parse(await dying.start(CALLER, 'tool', forever)).taskId as string;
      const liveTask = JSON.parse(await live.start(CALLER, 'tool', forever)).taskId as string;
      dead = true;
      const diedAt = Date.now();
      // Two instances sweep at once, as a cluster's survivors do: the task is failed once.
      const stops = sweepers.map((tasks) => tasks.watchAbandoned());
      try {
        const failed = await until(
          () => store.get(abandonedTask),
          (t) => t?.status === 'failed',
        );
        const after = Date.now() - diedAt;
        // The lease (400 ms) plus at most one sweep interval (half a lease), plus the machine's slack.
        assert.ok(after < 1_200, `failed ${after} ms after its instance stopped; the lease is 400 ms, a sweep every 200 ms`);
        assert.equal(failed!.statusMessage, 'The server instance running this task stopped before it finished');
        assert.deepEqual(failed!.error, {
          code: -32603,
          message: `Task ${abandonedTask} failed: the server instance running tool stopped before it finished; call tool again`,
        });
        assert.equal((await store.get(liveTask))!.status, 'working', 'its instance renews its lease: no sweep fails it');
        assert.equal(await sweepers[0]!.sweepAbandoned(), 0, 'nothing is left to fail');
      } finally {
        for (const stop of stops) stop();
      }
    });

    test('an instance that stalled past its lease finds the task failed and stops its work', async () => {
      const stalled = new Tasks(new SqlTaskStore(database.db), { ttlMs: 60_000, pollIntervalMs: 20, leaseMs: 10_000, logger: quietLogger });
      let aborted = false;
      const created = JSON.parse(
        await stalled.start(CALLER, 'tool', async ({ signal }) => {
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve())));
          return '{"content":[]}';
        }),
      );
      // Its lease, as if it had not been renewed for 10 s: another instance fails the task.
      await database.db
        .updateTable('mcp_tasks')
        .set({ lease_expires_at: new Date(Date.now() - 1).toISOString() })
        .where('id', '=', created.taskId)
        .execute();
      assert.equal((await get(created.taskId)).status, 'failed');
      // Its next renewal (every 2.5 s) finds the task ended, and the work is stopped.
      await until(
        async () => aborted,
        (a) => a,
      );
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
