import type { TestStreamingElicitationHandler } from '../generated/tools/test_streaming_elicitation.gen.ts';
import { NAME_QUESTION } from '../fixtures.ts';

/** Asks the user for a name: input_required at 2026-07-28, never a request on the response stream. */
export const handler: TestStreamingElicitationHandler = async (_args, ctx) => {
  const answer = await ctx.elicit(NAME_QUESTION);
  return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name ?? 'there')}!` }] };
};
