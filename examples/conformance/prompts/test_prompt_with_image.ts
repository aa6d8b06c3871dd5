import type { TestPromptWithImagePromptHandler } from '../generated/prompts.gen.ts';
import { PNG_BASE64 } from '../fixtures.ts';

/** A prompt with an image (a 1x1 PNG). */
export const handler: TestPromptWithImagePromptHandler = {
  get: () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }),
};
