import type { TemplateDataResourceHandler } from '../generated/resources.gen.ts';

/** Data for an id, from a URI template. */
export const handler: TemplateDataResourceHandler = {
  read: ({ id }) => ({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }),
};
