import type { HelloHandler } from '../generated/tools/hello.gen.ts';

/** Greets a person by name. */
export const handler: HelloHandler = async (args, ctx) => {
  // A declared error: the client gets the catalog's message, with the name filled in.
  if (args.name.trim().toLowerCase() === 'nobody') throw ctx.errors.NAME_NOT_ALLOWED({ name: args.name });
  return { greeting: `Hello, ${args.name}!` };
};
