/**
 * The server under attack: the real outreach server on a real port, on SQLite or PostgreSQL, with
 * two accounts that each own one of everything (profile, campaign, step, lead, conversation).
 * Account A is the attacker's; account B is the victim whose ids A tries.
 */
import type { DbKind } from '../../app/store/db/database.ts';
import { serverBackends, type ServerBackend } from '../helpers/outreach.ts';
import { assertToolResult, bearer, callTool, type McpResponse } from '../helpers/mcp-calls.ts';
import { postMcp, type TestServer } from '../helpers/server.ts';
import type { Ids } from '../helpers/tool-examples.ts';

export interface Party {
  accountId: string;
  userId: string;
  email: string;
  profileIds: string[];
  /** A token with every scope. */
  token: string;
  /** One of each thing this party owns. */
  ids: Ids;
  /** Names it gave its things: an answer to another party that holds one of them leaks. */
  names: string[];
}

export interface Target {
  store: DbKind;
  server: TestServer;
  a: Party;
  b: Party;
  /** tools/call over real HTTP with this token. */
  call(token: string, tool: string, args: Record<string, unknown>): Promise<McpResponse>;
  /** A party of its own, for an attack that disables, locks or revokes what it attacks. */
  freshParty(): Promise<Party>;
  /** Runs `attack` against a server of its own (same store kind), for an attack that spends a limit of the address. */
  withOwnServer<T>(env: Record<string, string>, attack: (server: TestServer) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How long a request may take to arrive: short, so that the slow-request attacks end in seconds. */
export const REQUEST_TIMEOUT_MS = 1500;

/** The backend of this kind, or why it cannot run here. */
export async function backendOf(store: DbKind): Promise<ServerBackend> {
  const backend = (await serverBackends()).find((b) => b.kind === store);
  if (!backend) throw new Error(`no store back-end named ${store}`);
  return backend;
}

/** Starts the server and gives A and B their data. */
export async function startTarget(store: DbKind): Promise<Target> {
  const backend = await backendOf(store);
  if (backend.skip) throw new Error(`cannot attack ${store}: ${backend.skip}`);
  // The suite sends hundreds of refused tokens from this one address on purpose: past the default
  // 30 a minute, every later attack would meet a 429 instead of the refusal it is about. The
  // limit itself is attacked on a server of its own (withOwnServer), at its default.
  const env = { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), AUTH_FAILURES_PER_MINUTE: '0' };
  const server = await backend.start(env);
  const call = (token: string, tool: string, args: Record<string, unknown>) => postMcp(server.mcpUrl, callTool(tool, args), bearer(token));
  let parties = 0;

  async function party(profiles: number): Promise<Party> {
    const tag = `P${++parties}`;
    const account = await server.createAccount({ profiles });
    const token = await server.token(account);
    const ok = async (tool: string, args: Record<string, unknown>) => assertToolResult(await call(token, tool, args));
    const profile = account.profileIds[0]!;
    const names = [`${tag} campaign`, `${tag} step`, `${tag} lead`, `${tag}-lead@example.com`, `${tag} message`];
    const { campaign } = await ok('create_campaign', {
      service_profile_id: profile,
      name: names[0],
      steps: [{ name: names[1], type: 'message', text: `Hello from ${names[0]}` }],
    });
    const { results } = await ok('add_leads', { service_profile_id: profile, campaign_id: campaign.id, leads: [{ first_name: names[2], email: names[3] }] });
    const leadId = results[0].lead_id as string;
    const { message } = await ok('send_message', { service_profile_id: profile, lead_id: leadId, text: names[4] });
    const ids: Ids = { profile, campaign: campaign.id, step: campaign.steps[0].id, lead: leadId, conversation: message.conversation_id };
    return { ...account, token, ids, names };
  }

  const a = await party(2);
  const b = await party(1);
  return {
    store,
    server,
    a,
    b,
    call,
    freshParty: () => party(1),
    async withOwnServer(ownEnv, attack) {
      const own = await backend.start({ ...env, ...ownEnv });
      try {
        return await attack(own);
      } finally {
        await own.close();
      }
    },
    close: () => server.close(),
  };
}
