import type { StaticBinaryResourceHandler } from '../generated/resources.gen.ts';
import { PNG_BASE64 } from '../fixtures.ts';

/** A fixed binary resource (a 1x1 PNG, base64). */
export const handler: StaticBinaryResourceHandler = {
  read: () => ({ blob: PNG_BASE64 }),
};
