import type { TestInputRequiredResultMultipleInputsHandler } from '../generated/tools/test_input_required_result_multiple_inputs.gen.ts';
import { NAME_QUESTION, textOf } from '../fixtures.ts';

/** Asks three questions at once: they go out together in one input_required result. */
export const handler: TestInputRequiredResultMultipleInputsHandler = async (_args, ctx) => {
  const [name, greeting, { roots }] = await Promise.all([
    ctx.elicit(NAME_QUESTION, { key: 'user_name' }),
    ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
    ctx.listRoots({ key: 'client_roots' }),
  ]);
  const who = String(name.content?.name ?? 'there');
  return { content: [{ type: 'text', text: `${textOf(greeting.content)} ${who} (roots: ${roots.map((r) => r.uri).join(', ') || 'none'})` }] };
};
