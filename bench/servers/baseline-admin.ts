/**
 * The admin side of the baseline's npm start (lib/baseline.ts): the bench account made, and its
 * rows counted, by the baseline's own code on its store, as the admin CLI of that commit would.
 * Opening that store with the current code would migrate it to today's schema under the baseline.
 *
 * Env: BENCH_BASELINE_ROOT (the baseline's folder) and the server's settings (PORT, HOST, DATA_DIR
 * or DATABASE_URL), from which its loadConfig derives the token audience. Prints `@bench account`;
 * answers the command `counts` with `@bench counts`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBenchAccount } from '../lib/bench-account.ts';
import { exitWithParent, onCommand, send } from '../lib/children.ts';

const root = process.env.BENCH_BASELINE_ROOT!;
const load = (file: string) => import(pathToFileURL(path.join(root, file)).href);
// The baseline's modules, not this checkout's: their types are whatever that commit said.
const [{ loadConfig }, { openService }] = (await Promise.all([load('app/config.ts'), load('app/server.ts')])) as [any, any];
const service = await openService(loadConfig(process.env));
const account = await createBenchAccount(service);
send('account', account);

const count = async (query: any) => Number(((await query.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirst()) as { n: number | string }).n);
onCommand(async (command) => {
  if (command.type !== 'counts') throw new Error(`unknown command ${command.type}`);
  const db = service.db;
  const campaigns = await count(db.selectFrom('campaigns').where('account_id', '=', account.accountId));
  const steps = await count(
    db.selectFrom('steps').innerJoin('campaigns', 'campaigns.id', 'steps.campaign_id').where('campaigns.account_id', '=', account.accountId),
  );
  send('counts', { campaigns, steps });
});
exitWithParent(() => service.db.destroy());
