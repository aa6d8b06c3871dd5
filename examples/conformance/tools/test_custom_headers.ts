import type { TestCustomHeadersHandler } from '../generated/tools/test_custom_headers.gen.ts';

/** Echoes its region; the runtime has already checked it against the Mcp-Param-Region header. */
export const handler: TestCustomHeadersHandler = async ({ region }) => ({ content: [{ type: 'text', text: `Region: ${region}` }] });
