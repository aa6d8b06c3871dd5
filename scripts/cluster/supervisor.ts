/**
 * `npm run cluster`'s keeper: an instance that dies (kill -9, a crash: any exit but a clean one) is
 * started again on its port, as a process manager does on real hosts (systemd's
 * `Restart=on-failure`, docs/operating.md); HAProxy marks it UP again once its /readyz answers. One
 * stopped cleanly (exit code 0) stays stopped. An instance that keeps dying soon after its start
 * waits longer each time (1 s, doubled up to 30 s), so that a crash loop does not spin.
 */
import type { ClusterInstance } from './instance.ts';

const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 30_000;
/** An instance that ran this long before it died starts its backoff again from the first wait. */
const STABLE_AFTER_MS = 60_000;

export interface Supervision {
  /** Whether the whole cluster is stopping (Ctrl-C): nothing is restarted then. */
  stopping(): boolean;
  /** Where it says what it does. */
  say(line: string): void;
}

export function superviseInstances(instances: readonly ClusterInstance[], supervision: Supervision): void {
  for (const instance of instances) keep(instance, supervision, FIRST_WAIT_MS);
}

function keep(instance: ClusterInstance, supervision: Supervision, wait: number): void {
  const startedAt = Date.now();
  instance.process.once('exit', (code, signal) => {
    if (supervision.stopping() || code === 0) return;
    const next = Date.now() - startedAt > STABLE_AFTER_MS ? FIRST_WAIT_MS : wait;
    supervision.say(`${instance.name} (pid ${instance.pid}) died (${signal ?? `exit code ${code}`}); starting it again in ${next / 1000} s`);
    setTimeout(() => void again(instance, supervision, next), next);
  });
}

async function again(instance: ClusterInstance, supervision: Supervision, waited: number): Promise<void> {
  if (supervision.stopping() || instance.running) return;
  const longer = Math.min(waited * 2, LONGEST_WAIT_MS);
  try {
    await instance.start();
  } catch (err) {
    if (supervision.stopping()) return;
    supervision.say(`${instance.name} did not start again (${(err as Error).message.split('\n')[0]}); trying in ${longer / 1000} s`);
    setTimeout(() => void again(instance, supervision, longer), longer);
    return;
  }
  supervision.say(`${instance.name} is back: ${instance.url} (pid ${instance.pid}); HAProxy sends it requests again once its /readyz check passes`);
  keep(instance, supervision, longer);
}
