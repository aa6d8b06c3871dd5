import type { TestSimpleTextHandler } from '../generated/tools/test_simple_text.gen.ts';

/** Returns a simple text content block. */
export const handler: TestSimpleTextHandler = async () => ({
  content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
});
