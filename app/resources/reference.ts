import type { ReferenceResourceHandler } from '../../generated/resources.gen.ts';
import { referenceMarkdown } from '../reference-docs.ts';

/** Tool reference: the generated Markdown (docs/reference.md), read on first use. */
export const handler: ReferenceResourceHandler = {
  async read() {
    return { text: await referenceMarkdown() };
  },
};
