import type { TestInputRequiredResultMultiRoundHandler } from '../generated/tools/test_input_required_result_multi_round.gen.ts';

/** Two rounds: a name (step1), then a favourite colour (step2); the state carries step1's answer. */
export const handler: TestInputRequiredResultMultiRoundHandler = async (_args, ctx) => {
  const name = await ctx.elicit(
    {
      message: 'Step 1: What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    { key: 'step1' },
  );
  const color = await ctx.elicit(
    {
      message: 'Step 2: What is your favorite color?',
      requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
    },
    { key: 'step2' },
  );
  return { content: [{ type: 'text', text: `${String(name.content?.name)} likes ${String(color.content?.color)}` }] };
};
