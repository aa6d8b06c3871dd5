import type { TestToolWithLoggingHandler } from '../generated/tools/test_tool_with_logging.gen.ts';
import { pause } from '../fixtures.ts';

/** Sends three info log notifications about 50 ms apart while it runs, then returns text. */
export const handler: TestToolWithLoggingHandler = async (_args, ctx) => {
  ctx.log('info', 'Tool execution started');
  await pause(ctx.signal);
  ctx.log('info', 'Tool processing data');
  await pause(ctx.signal);
  ctx.log('info', 'Tool execution completed');
  return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
};
