import type { GreetHandler } from '../generated/tools/greet.gen.ts';

/** Greets someone (a plain tool, never a task). */
export const handler: GreetHandler = ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] });
