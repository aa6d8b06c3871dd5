import type { ConfirmDeleteHandler } from '../generated/tools/confirm_delete.gen.ts';

/** Asks the user to confirm deleting a file, then says what it did. */
export const handler: ConfirmDeleteHandler = async ({ filename }, ctx) => {
  const answer = await ctx.elicit({
    message: `Delete ${filename}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', description: 'Delete it' } }, required: ['confirm'] },
  });
  const deleted = answer.action === 'accept' && answer.content?.confirm === true;
  return { content: [{ type: 'text', text: deleted ? `Deleted ${filename}` : `Kept ${filename}` }] };
};
