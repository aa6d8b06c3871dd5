import type { TestLoggingToolHandler } from '../generated/tools/test_logging_tool.gen.ts';

/** Logs three info messages; at 2026-07-28 they go out only when the request carries a logLevel. */
export const handler: TestLoggingToolHandler = async (_args, ctx) => {
  ctx.log('info', 'Tool execution started');
  ctx.log('info', 'Tool processing data');
  ctx.log('info', 'Tool execution completed');
  return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
};
