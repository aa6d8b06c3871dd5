import type { TestInputRequiredResultListRootsHandler } from '../generated/tools/test_input_required_result_list_roots.gen.ts';

/** Asks the client for its roots under the key client_roots and names them. */
export const handler: TestInputRequiredResultListRootsHandler = async (_args, ctx) => {
  const { roots } = await ctx.listRoots({ key: 'client_roots' });
  return { content: [{ type: 'text', text: `Roots: ${roots.map((r) => r.uri).join(', ') || 'none'}` }] };
};
