import type { TestElicitationHandler } from '../generated/tools/test_elicitation.gen.ts';

/** Asks the user for a username and an email and returns the answer. */
export const handler: TestElicitationHandler = async ({ message }, ctx) => {
  const answer = await ctx.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address" },
      },
      required: ['username', 'email'],
    },
  });
  return { content: [{ type: 'text', text: `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }] };
};
