import type { TestPromptWithEmbeddedResourcePromptHandler } from '../generated/prompts.gen.ts';

/** A prompt that embeds the resource named by its argument. */
export const handler: TestPromptWithEmbeddedResourcePromptHandler = {
  get: ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }),
};
