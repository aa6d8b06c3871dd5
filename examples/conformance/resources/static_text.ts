import type { StaticTextResourceHandler } from '../generated/resources.gen.ts';

/** A fixed text resource. */
export const handler: StaticTextResourceHandler = {
  read: () => ({ text: 'This is the content of the static text resource.' }),
};
