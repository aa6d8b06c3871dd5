import type { TestMultipleContentTypesHandler } from '../generated/tools/test_multiple_content_types.gen.ts';
import { PNG_BASE64 } from '../fixtures.ts';

/** Returns text, image and embedded resource content blocks in one result. */
export const handler: TestMultipleContentTypesHandler = async () => ({
  content: [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
    },
  ],
});
