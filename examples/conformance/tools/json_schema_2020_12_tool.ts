import type { JsonSchema202012ToolHandler } from '../generated/tools/json_schema_2020_12_tool.gen.ts';

/** Tool with JSON Schema 2020-12 features: echoes the validated arguments. */
export const handler: JsonSchema202012ToolHandler = async (args) => ({
  content: [{ type: 'text', text: JSON.stringify(args) }],
});
