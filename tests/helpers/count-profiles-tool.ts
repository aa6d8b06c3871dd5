/**
 * The tool the add-a-tool tests declare in a copy of the project (e2e/add-a-tool, e2e/gen-handler-edits):
 * how many sender profiles the token's account has, under a name of the test's choosing.
 */
export const countProfilesTool = (name = 'count_profiles') => `  ${name}:
    title: Count profiles
    description: Says how many sender profiles the token's account has.
    scopes: [mcp:read]
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    input:
      type: object
      additionalProperties: false
      properties:
        channel: { type: string, enum: [linkedin, email], description: Count only the profiles of this channel. }
    output:
      type: object
      required: [account_id, count]
      additionalProperties: false
      properties:
        account_id: { type: string, description: The account the token is for. }
        count: { type: integer, minimum: 0, description: How many profiles it has. }
    examples:
      - arguments: {}
        result: { account_id: acc_3k5m7n9p1q2r4s6t, count: 2 }
`;
