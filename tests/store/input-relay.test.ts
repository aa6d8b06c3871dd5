/**
 * The input relay on both back-ends (app/input-relay.ts): two relays on one database play two
 * instances; an answer received by one reaches the call waiting on the other, only from the same
 * caller and only once. On PostgreSQL the poll is turned down to once a minute, so that only
 * LISTEN/NOTIFY can deliver within the second; on SQLite (processes sharing a file) the poll does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InputAnswer } from '../../runtime/index.ts';
import { StoreInputRelay } from '../../app/input-relay.ts';
import { sweepExpiredInputWaits } from '../../app/store/input-waits.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const quiet = { warn: () => undefined };
const CALLER = 'usr_1|acc_1';
const id = () => `srv-${crypto.randomUUID()}`;

for (const backend of await backends()) {
  describe(`the input relay on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let asking: StoreInputRelay;
    let receiving: StoreInputRelay;
    before(async () => {
      database = await backend.create();
      const options = {
        db: database.db,
        kind: database.kind,
        logger: quiet,
        ...(backend.kind === 'postgres' && { databaseUrl: database.env.DATABASE_URL!, pollMs: 60_000 }),
      };
      asking = new StoreInputRelay(options);
      receiving = new StoreInputRelay(options);
      await asking.start();
      await receiving.start();
    });
    after(async () => {
      await asking?.stop();
      await receiving?.stop();
      await database?.close();
    });

    const rows = async () => (await database.db.selectFrom('mcp_input_waits').select('id').execute()).length;

    test("an answer received elsewhere reaches the waiting call within a second; another caller's is refused; once only", async () => {
      const question = id();
      let delivered!: (answer: InputAnswer) => void;
      const arrived = new Promise<InputAnswer>((resolve) => (delivered = resolve));
      const end = await asking.wait(question, CALLER, delivered);
      assert.equal(await receiving.relay(question, 'usr_2|acc_2', { result: { action: 'decline' } }), false, "another caller's answer");
      assert.equal(await receiving.relay(id(), CALLER, { result: {} }), false, 'an answer nobody waits for');
      const sentAt = Date.now();
      assert.equal(await receiving.relay(question, CALLER, { result: { action: 'accept' } }), true);
      assert.equal(await receiving.relay(question, CALLER, { result: { action: 'decline' } }), false, 'answered once');
      const answer = await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error('not delivered within 1 s')), 1_000))]);
      assert.deepEqual(answer, { result: { action: 'accept' } });
      console.log(`# ${backend.kind}: delivered ${Date.now() - sentAt} ms after it was received`);
      end();
      assert.equal(await rows(), 0, 'the answer was taken out with its wait');
    });

    test('a wait that ends unanswered is removed; one whose instance died expires', async () => {
      const end = await asking.wait(id(), CALLER, () => assert.fail('nothing was answered'));
      end();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await rows(), 0);
      const dead = new StoreInputRelay({ db: database.db, kind: database.kind, logger: quiet, keepMs: 1_000 });
      await dead.wait(id(), CALLER, () => undefined);
      assert.equal(await sweepExpiredInputWaits(database.db, new Date()), 0);
      assert.equal(await sweepExpiredInputWaits(database.db, new Date(Date.now() + 1_001)), 1);
    });
  });
}
