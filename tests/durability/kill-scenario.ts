/**
 * kill -9 under concurrent writers: server processes on one store, writers at work, a process
 * killed with SIGKILL at random moments and started again, `kills` times over `seconds`; then
 * the figures of the trial. The setups: one process on SQLite, two processes on one SQLite file,
 * two instances on one PostgreSQL database.
 */
import { withCleanups } from '../helpers/cleanup.ts';
import { freshStoreEnv, postgresBackend } from '../helpers/databases.ts';
import { openTrial, type TrialFigures } from './trial.ts';

export interface KillSetup {
  name: string;
  instances: number;
  /** Why it cannot run here, or undefined. */
  skip: string | undefined;
  /** A fresh store: its environment, and its removal. */
  store(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

export interface KillLoad {
  seconds: number;
  kills: number;
  writers: number;
  leads: number;
}

export interface KillFigures extends TrialFigures {
  setup: string;
  kills: number;
}

/** The three setups; PostgreSQL's skips (with the reason) where no server answers, except in CI. */
export async function killSetups(): Promise<KillSetup[]> {
  const pg = await postgresBackend();
  return [
    { name: 'SQLite, one process', instances: 1, skip: undefined, store: () => freshStoreEnv('sqlite') },
    { name: 'SQLite, two processes on one file', instances: 2, skip: undefined, store: () => freshStoreEnv('sqlite') },
    { name: 'PostgreSQL, two instances', instances: 2, skip: pg.skip, store: () => freshStoreEnv('postgres') },
  ];
}

/** The moments of the kills, in ms from the start: one at random in each of `kills` equal slices of the run. */
function killMoments(load: KillLoad): number[] {
  const slice = (load.seconds * 1000) / load.kills;
  return Array.from({ length: load.kills }, (_, i) => Math.round(slice * (i + 0.2 + 0.6 * Math.random())));
}

export function runKillScenario(setup: KillSetup, load: KillLoad): Promise<KillFigures> {
  return withCleanups(async (defer) => {
    const store = await setup.store();
    defer(() => store.drop());
    const trial = await openTrial({ storeEnv: store.env, instances: setup.instances, writers: load.writers, leads: load.leads });
    defer(() => trial.close());
    const started = Date.now();
    for (const at of killMoments(load)) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + at - Date.now())));
      await trial.instances.killAndRestart();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + load.seconds * 1000 - Date.now())));
    return { setup: setup.name, kills: trial.instances.kills, ...(await trial.finish()) };
  });
}
