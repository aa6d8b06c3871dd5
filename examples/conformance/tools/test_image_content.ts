import type { TestImageContentHandler } from '../generated/tools/test_image_content.gen.ts';
import { PNG_BASE64 } from '../fixtures.ts';

/** Returns an image content block (a 1x1 PNG, base64). */
export const handler: TestImageContentHandler = async () => ({
  content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
});
