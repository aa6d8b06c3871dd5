import type { TestToolWithProgressHandler } from '../generated/tools/test_tool_with_progress.gen.ts';
import { pause } from '../fixtures.ts';

/** Reports progress 0, 50 and 100 of 100 about 50 ms apart, then returns text. */
export const handler: TestToolWithProgressHandler = async (_args, ctx) => {
  ctx.progress(0, 100, 'Completed step 0 of 100');
  await pause(ctx.signal);
  ctx.progress(50, 100, 'Completed step 50 of 100');
  await pause(ctx.signal);
  ctx.progress(100, 100, 'Completed step 100 of 100');
  return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
};
