/**
 * Arguments for any declared tool, taken from its worked examples in tools.yaml with the ids
 * replaced by real ones: shared by the tests that cover every tool (errors, the attack suite), so
 * that a new tool (with its example, which the docs need anyway) joins them without a line here.
 */
import { loadToolsYaml } from '../../codegen/load/load.ts';

/** The ids a tool call can name, by kind. */
export interface Ids {
  profile: string;
  campaign: string;
  step: string;
  lead: string;
  conversation: string;
}

/** The id arguments the tools take, and which of the ids each one gets. */
export const ID_ARGUMENTS: Record<string, keyof Ids> = {
  service_profile_id: 'profile',
  campaign_id: 'campaign',
  step_id: 'step',
  lead_id: 'lead',
  conversation_id: 'conversation',
};

export const toolsModel = loadToolsYaml('tools.yaml');

/**
 * Arguments that pass validation for a tool and would succeed with the owner's ids and scopes:
 * its first worked example that succeeds (and takes the argument `taking`), with the ids
 * replaced by these.
 */
export function validArgs(tool: string, ids: Ids, taking?: string): Record<string, unknown> {
  const example = toolsModel.tools.find((t) => t.name === tool)?.examples.find((e) => e.error === undefined && (taking === undefined || taking in e.arguments));
  if (!example) throw new Error(`tools.yaml has no successful example of the tool ${tool}${taking ? ` with ${taking}` : ''}; add one under its examples`);
  const args = structuredClone(example.arguments);
  for (const [name, id] of Object.entries(ID_ARGUMENTS)) if (name in args) args[name] = ids[id];
  return args;
}
