import type { TestElicitationSep1034DefaultsHandler } from '../generated/tools/test_elicitation_sep1034_defaults.gen.ts';

/** Asks with a form whose fields all have defaults (SEP-1034). */
export const handler: TestElicitationSep1034DefaultsHandler = async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'Please review the defaults',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        score: { type: 'number', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', default: true },
      },
    },
  });
  return { content: [{ type: 'text', text: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }] };
};
