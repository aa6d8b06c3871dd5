import type { MultiInputHandler } from '../generated/tools/multi_input.gen.ts';

const ask = (field: string) => ({
  message: `Your ${field}?`,
  requestedSchema: { type: 'object' as const, properties: { [field]: { type: 'string' } }, required: [field] },
});

/** Asks two questions at once, then answers with both replies. */
export const handler: MultiInputHandler = async (_args, ctx) => {
  const [name, color] = await Promise.all([ctx.elicit(ask('name')), ctx.elicit(ask('color'))]);
  return { content: [{ type: 'text', text: `name: ${JSON.stringify(name.content ?? {})}, color: ${JSON.stringify(color.content ?? {})}` }] };
};
