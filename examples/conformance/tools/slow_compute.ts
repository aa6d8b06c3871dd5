import type { SlowComputeHandler } from '../generated/tools/slow_compute.gen.ts';

/** Waits the given seconds (stopping at once when the task is cancelled), then answers. */
export const handler: SlowComputeHandler = async ({ seconds, label }, ctx) => {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))), { once: true });
  });
  return { content: [{ type: 'text', text: `Computed ${label ?? 'result'} after ${seconds} s` }] };
};
