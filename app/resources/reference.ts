import type { ReferenceResourceHandler } from '../../generated/resources.gen.ts';

/** Tool reference: the generated Markdown, loaded on first read (it is large and rarely read). */
export const handler: ReferenceResourceHandler = {
  async read() {
    const { referenceMarkdown } = await import('../../generated/docs.gen.ts');
    return { text: referenceMarkdown };
  },
};
