/**
 * Assembles the outreach service: store, signing keys, token verification, the MCP endpoint
 * generated from tools.yaml, and the supporting HTTP routes.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serverDefinition } from '../generated/server.gen.ts';
import { handlerFiles } from '../generated/handlers.gen.ts';
import { Challenges, createJwtAuthenticator, type Authenticator } from '../runtime/auth.ts';
import { ErrorFactory } from '../runtime/errors.ts';
import { mcpHttp, resourceMetadataUrl } from '../runtime/http.ts';
import { resourceMetadata } from '../runtime/resource-metadata.ts';
import { principalCheck } from './auth/principal-check.ts';
import { SigningKeys } from './auth/signing-keys.ts';
import { mintAccessToken, type TokenClaims } from './auth/tokens.ts';
import type { AppConfig } from './config.ts';
import { loadHandlers } from './handlers.ts';
import { inboundWebhook } from './inbound-webhook.ts';
import './services.ts';
import { AccountStore } from './store/accounts.ts';
import { CampaignStore } from './store/campaigns.ts';
import { LeadStore } from './store/leads.ts';
import { MessageStore } from './store/messages.ts';
import { StatsStore } from './store/stats.ts';
import { LogDeliveryAdapter, WebhookDeliveryAdapter } from './delivery/adapter.ts';
import { OutboxWorker } from './delivery/outbox-worker.ts';
import { migrate, openDatabase, type Db } from './store/database.ts';

const HANDLERS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tools');

export interface Service {
  app: FastifyInstance;
  db: Db;
  accounts: AccountStore;
  campaigns: CampaignStore;
  leads: LeadStore;
  messages: MessageStore;
  outbox: OutboxWorker;
  keys: SigningKeys;
  authenticator: Authenticator;
  /** Mints an access token for a user (creating a grant so that it can be revoked). */
  issueToken(
    input: Omit<TokenClaims, 'grantId' | 'clientId'> & { clientId?: string; ttlSeconds?: number },
  ): Promise<{ token: string; expiresAt: Date; grantId: string }>;
  /** Removes an authorization: its tokens stop working at once. */
  revokeGrant(grantId: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the store (running migrations) and the keys: what both the server and the CLI need. */
export async function openService(config: AppConfig) {
  const { db, kind, location } = openDatabase(config);
  await migrate(db);
  const keys = new SigningKeys(db);
  await keys.init();
  const accounts = new AccountStore(db);
  const campaigns = new CampaignStore(db, kind);
  const leads = new LeadStore(db, kind);
  const messages = new MessageStore(db, kind);
  const stats = new StatsStore(db);
  const tokenSettings = { issuer: config.publicUrl, audience: `${config.publicUrl}/mcp` };
  async function issueToken(input: Parameters<Service['issueToken']>[0]) {
    const clientId = input.clientId ?? 'cli';
    const grantId = await accounts.createGrant({ userId: input.userId, accountId: input.accountId, clientId, scope: input.scope });
    const minted = await mintAccessToken(keys, tokenSettings, { ...input, clientId, grantId }, input.ttlSeconds);
    return { ...minted, grantId };
  }
  return { db, kind, location, keys, accounts, campaigns, leads, messages, stats, tokenSettings, issueToken };
}

export async function buildServer(config: AppConfig, options: { logger?: boolean; validateResults?: boolean } = {}): Promise<Service> {
  const opened = await openService(config);
  const { db, keys, accounts, campaigns, leads, messages, stats, tokenSettings } = opened;
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel },
    logController: new LogController({ disableRequestLogging: true }),
    // The MCP plugin sets its own limit and error; this covers the other routes.
    bodyLimit: 1024 * 1024,
  });
  const errors = new ErrorFactory(serverDefinition.errors);
  const authenticator = createJwtAuthenticator(
    { issuer: tokenSettings.issuer, audience: tokenSettings.audience, keys: keys.getKey, checkPrincipal: principalCheck(accounts) },
    errors,
    new Challenges(resourceMetadataUrl(config.publicUrl)),
  );
  const handlers = await loadHandlers(HANDLERS_DIR, handlerFiles);
  const adapter = config.deliveryWebhookUrl
    ? new WebhookDeliveryAdapter(config.deliveryWebhookUrl)
    : new LogDeliveryAdapter((obj, msg) => app.log.info(obj, msg));
  const outbox = new OutboxWorker(db, adapter, { logger: app.log });

  await app.register(mcpHttp, {
    definition: serverDefinition,
    handlers,
    services: { accounts, campaigns, leads, messages, stats, outbox },
    authenticator,
    publicUrl: config.publicUrl,
    allowedOrigins: config.allowedOrigins,
    allowedHosts: config.allowedHosts,
    validateResults: options.validateResults ?? process.env.NODE_ENV !== 'production',
  });
  await app.register(resourceMetadata, {
    resource: tokenSettings.audience,
    authorizationServers: [config.publicUrl],
    scopes: serverDefinition.scopes.map((s) => s.name),
    resourceName: serverDefinition.info.title ?? serverDefinition.info.name,
  });
  if (config.inboundWebhookSecret) await app.register(inboundWebhook, { secret: config.inboundWebhookSecret, messages });
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.publicJwks();
  });
  app.get('/healthz', async () => {
    return { status: 'ok', server: serverDefinition.info };
  });

  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => outbox.stop());
  // Answers that finish after close() began also close their keep-alive connection; otherwise
  // close() (and a SIGTERM shutdown) waits for the keep-alive timeout, about 70 s.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  return {
    app,
    db,
    accounts,
    campaigns,
    leads,
    messages,
    outbox,
    keys,
    authenticator,
    issueToken: opened.issueToken,
    async revokeGrant(grantId) {
      await accounts.revokeGrant(grantId);
      authenticator.invalidateGrant(grantId);
    },
    async close() {
      await app.close();
      await db.destroy();
    },
  };
}
