/**
 * The cluster's child processes (HAProxy, the instances), killed when this process exits however
 * it exits (a failed test, an uncaught error), so that none is left running.
 */
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let hooked = false;

/** Keeps `child` to be killed at exit; returns it. */
export function track<T extends ChildProcess>(child: T): T {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Whether the process has ended. */
export const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM, SIGKILL after `graceMs`, and wait until it exited. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (exited(child)) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
