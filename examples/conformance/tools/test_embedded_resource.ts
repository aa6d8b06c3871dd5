import type { TestEmbeddedResourceHandler } from '../generated/tools/test_embedded_resource.gen.ts';

/** Returns an embedded text resource content block. */
export const handler: TestEmbeddedResourceHandler = async () => ({
  content: [
    {
      type: 'resource',
      resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
    },
  ],
});
