/**
 * Assembles the outreach service: the store, signing keys and authorizations; the MCP endpoint
 * generated from tools.yaml; the OAuth authorization server for connectors; the web app with the
 * MCP dialog; and the supporting routes (resource metadata, JWKS, health, inbound webhook).
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serverDefinition } from '../generated/server.gen.ts';
import { handlers, promptHandlers, resourceHandlers } from '../generated/handlers.gen.ts';
import { describeStoreOutage } from './store/db/outage.ts';
import { SqlTaskStore } from './store/tasks.ts';
import { createJwtAuthenticator, mcpHttp, resourceMetadata, type Authenticator, type McpServerOptions } from 'mcpyard';
import { accountClaims, ACCOUNT_CLAIM_ERRORS, type AccountClaims } from './auth/account-claims.ts';
import { ActivityRecorder } from './activity/recorder.ts';
import { systemClock, type Clock } from './clock.ts';
import { Sequencer } from './sequencing/sequencer.ts';
import { SequencingStore } from './store/sequencing.ts';
import { Authorizations } from './auth/authorizations.ts';
import { principalCheck } from './auth/principal-check.ts';
import { RevocationFeed } from './auth/revocation-feed.ts';
import { SigningKeys } from './auth/signing-keys.ts';
import { KeyEncryption } from './auth/key-encryption.ts';
import { isLoopback, type AppConfig } from './config.ts';
import { MailboxPasswords } from './auth/mailbox-passwords.ts';
import { ProfileStore } from './store/profiles.ts';
import { DEMO, demoAllowed } from './seed.ts';
import { LogDeliveryAdapter, WebhookDeliveryAdapter } from './delivery/adapter.ts';
import { ProfileDeliveryAdapter } from './delivery/by-profile.ts';
import { loadDkimKeys } from './delivery/dkim-keys.ts';
import { SmtpDeliveryAdapter } from './delivery/smtp-adapter.ts';
import { UNSUBSCRIBE_SECRET } from './unsubscribe/links.ts';
import { OutboxWorker } from './delivery/outbox-worker.ts';
import { Housekeeping } from './housekeeping.ts';
import { MailboxReaders, type MailboxReadersOptions } from './mailbox/readers.ts';
import { applyUnsubscribe } from './unsubscribe/apply.ts';
import { InboundMailStore } from './store/inbound-mail.ts';
import { MailboxReaderStore } from './store/mailbox-readers.ts';
import { inboundWebhook } from './inbound-webhook.ts';
import { OAuthServer, oauthRoutes } from './oauth/plugin.ts';
import type { Services } from './services.ts';
import { AccountStore } from './store/accounts.ts';
import { ActivityStore } from './store/activity.ts';
import { ApprovalStore } from './store/approvals.ts';
import { CampaignReviews } from './store/campaign-review.ts';
import { appLinks } from './links.ts';
import { CampaignStore } from './store/campaigns.ts';
import { DashboardStore } from './store/dashboard.ts';
import { migrate, openDatabase, type Db } from './store/db/database.ts';
import { GrantStore } from './store/grants.ts';
import { LeadStore } from './store/leads.ts';
import { MessageStore } from './store/messages.ts';
import { sharedSecret } from './store/secrets.ts';
import { SuppressionStore } from './store/suppressions.ts';
import { StatsStore } from './store/stats.ts';
import { webApp } from './web/plugin.ts';
import { Metrics } from './ops/metrics.ts';
import { readiness } from './ops/readiness.ts';
import { requestLog } from './ops/request-log.ts';
import { deferredChildLogger } from './ops/deferred-logger.ts';
import { lazySchemaCompilers } from './ops/lazy-schema-compilers.ts';
import { connectRedis } from './ops/redis.ts';
import { StoreInputRelay } from './input-relay.ts';

export interface BuildOptions {
  logger?: boolean;
  /** Check every tool result against its outputSchema (default true; the benchmark measures the cost by turning it off). */
  validateResults?: boolean;
  /** Access-token lifetime (default 1 hour); tests shorten it to see expiry and refresh. */
  accessTokenTtlSeconds?: number;
  /** How often instances look for grants revoked elsewhere (default 250 ms on SQLite, 5 s on PostgreSQL besides NOTIFY). */
  revocationPollMs?: number;
  /** The time the sequencing runs on (default: the system clock); tests move a ManualClock. */
  clock?: Clock;
  /** Let the sequencer tick by itself, about once a second (default true); tests call `sequencer.tick()`. */
  autoTick?: boolean;
  /**
   * OpenTelemetry spans and metrics (default false): set when an SDK was started (ops/telemetry.ts).
   * The MCP requests, the SQLite statements, the sequencer's batches and the outbox deliveries then make spans.
   */
  telemetry?: boolean;
  /** How the mailbox readers renew leases and poll (tests shorten them); the unsubscribe mailto's handler. */
  mailboxReaders?: Pick<MailboxReadersOptions, 'refreshMs' | 'leaseMs' | 'pollMs' | 'onUnsubscribe'>;
  /** Where the log lines go (default stdout); stdio mode sends them to stderr, for stdout carries its JSON-RPC. */
  logStream?: NodeJS.WritableStream;
}

export interface Service {
  app: FastifyInstance;
  db: Db;
  accounts: AccountStore;
  campaigns: CampaignStore;
  leads: LeadStore;
  messages: MessageStore;
  /** Sender profiles and their mailboxes, as the admin CLI manages them. */
  profiles: ProfileStore;
  outbox: OutboxWorker;
  keys: SigningKeys;
  authorizations: Authorizations;
  authenticator: Authenticator<AccountClaims>;
  activity: ActivityRecorder;
  sequencer: Sequencer;
  /** Read each email profile's mailbox for replies and bounces. */
  mailboxReaders: MailboxReaders;
  /** What /mcp serves (tools.yaml's definition, the handlers, the services and the stores behind tools), for serving it on stdio too. */
  mcp: McpServerOptions<Services, AccountClaims>;
  /** Mints an access token for a user on a grant of its own (kind `cli`: the admin CLI and tests). */
  issueToken(input: { userId: string; accountId: string; scope: string; ttlSeconds?: number }): Promise<{ token: string; expiresAt: Date; grantId: string }>;
  /** Removes an authorization: its tokens stop working at once here, within a second elsewhere. */
  revokeGrant(grantId: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the store (running migrations), the keys and the authorizations: what both the server and the CLI need. */
export async function openService(config: AppConfig, options: Pick<BuildOptions, 'accessTokenTtlSeconds' | 'clock' | 'telemetry'> = {}) {
  const { db, kind, location, pool } = await openDatabase(config, { traced: options.telemetry ?? false });
  await migrate(db);
  const clock = options.clock ?? systemClock;
  const encryption = config.keyEncryptionKey && new KeyEncryption(config.keyEncryptionKey);
  const keys = new SigningKeys(db, encryption);
  const profiles = new ProfileStore(db, new MailboxPasswords(encryption, isLoopback(new URL(config.publicUrl).hostname)), clock);
  // A wrong or missing KEY_ENCRYPTION_KEY fails here: the start ends, the store is let go.
  await keys.init().catch(async (err: unknown) => {
    await db.destroy();
    throw err;
  });
  // Mailbox passwords saved before KEY_ENCRYPTION_KEY was set are sealed now, as the signing keys are.
  await profiles.sealPlainPasswords();
  const accounts = new AccountStore(db, clock);
  const grants = new GrantStore(db, kind);
  const campaigns = new CampaignStore(db, kind, clock);
  const leads = new LeadStore(db, kind, clock);
  const messages = new MessageStore(db, kind, clock);
  const stats = new StatsStore(db);
  const suppressions = new SuppressionStore(db, clock);
  const approvals = new ApprovalStore(db, clock);
  const links = appLinks(config.publicUrl);
  const reviews = new CampaignReviews(db, { campaigns, accounts }, links, clock);
  const tokenSettings = { issuer: config.publicUrl, audience: `${config.publicUrl}/mcp` };
  const authorizations = new Authorizations(grants, keys, tokenSettings, options.accessTokenTtlSeconds);
  async function issueToken(input: Parameters<Service['issueToken']>[0]) {
    const issued = await authorizations.issueToken(input, input.scope, input.ttlSeconds === undefined ? {} : { ttlSeconds: input.ttlSeconds });
    return { token: issued.token, expiresAt: issued.expiresAt, grantId: issued.grant.id };
  }
  return {
    db,
    kind,
    location,
    pool,
    clock,
    keys,
    profiles,
    accounts,
    grants,
    campaigns,
    leads,
    messages,
    stats,
    suppressions,
    approvals,
    links,
    reviews,
    tokenSettings,
    authorizations,
    issueToken,
  };
}

export async function buildServer(config: AppConfig, options: BuildOptions = {}): Promise<Service> {
  // Before the store opens: an unreadable key ends the start with nothing to let go.
  const dkimKeys = config.dkimKeysDir ? loadDkimKeys(config.dkimKeysDir) : undefined;
  const opened = await openService(config, options);
  const {
    db,
    kind,
    pool,
    clock,
    keys,
    profiles,
    accounts,
    grants,
    campaigns,
    leads,
    messages,
    stats,
    suppressions,
    approvals,
    links,
    reviews,
    tokenSettings,
    authorizations,
  } = opened;
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel, ...(options.logStream && { stream: options.logStream }) },
    logController: new LogController({ disableRequestLogging: true }),
    ...(options.logger !== false && { childLoggerFactory: deferredChildLogger }),
    // The MCP plugin sets its own limit and error; this covers the other routes.
    bodyLimit: 1024 * 1024,
    // An unsubscribe link's token carries the address (app/unsubscribe/links.ts): up to about 410
    // characters for the longest address (254). Fastify's default of 100 answered 414 to the links
    // of every address over 27 characters.
    maxParamLength: 512,
    trustProxy: config.trustProxy,
    // A client that sends its request slowly (a byte every few seconds) is cut off with 408. Node
    // applies this only with headersTimeout no longer than it, given when the server is made, and
    // looks for such requests every connectionsCheckingInterval (30 s unless told).
    requestTimeout: config.requestTimeoutMs,
    // An idle keep-alive connection holds a socket and its buffers: close it after this long.
    keepAliveTimeout: config.idleTimeoutMs,
    schemaController: { compilersFactory: lazySchemaCompilers() },
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs),
    },
  });
  const appName = serverDefinition.info.title ?? serverDefinition.info.name;
  const secure = config.publicUrl.startsWith('https:');

  // mcpHttp answers the authenticator's refusals (the catalog's 401s, with their challenges).
  const authenticator = createJwtAuthenticator<AccountClaims>({
    issuer: tokenSettings.issuer,
    audience: tokenSettings.audience,
    keys: keys.getKey,
    claims: accountClaims,
    claimErrors: ACCOUNT_CLAIM_ERRORS,
    checkPrincipal: principalCheck(accounts, grants),
  });
  authorizations.onRevoked((grantId) => authenticator.invalidateGrant(grantId));
  const revocations = new RevocationFeed({
    grants,
    ...(config.databaseUrl && { databaseUrl: config.databaseUrl }),
    ...(options.revocationPollMs !== undefined && { pollMs: options.revocationPollMs }),
    onRevoked: (grantId) => authenticator.invalidateGrant(grantId),
    logger: app.log,
  });
  // A handshake-era answer may reach any instance: the relay hands it to the one whose call waits.
  const inputRelay = new StoreInputRelay({ db, kind, ...(config.databaseUrl && { databaseUrl: config.databaseUrl }), logger: app.log });
  const activity = new ActivityRecorder(new ActivityStore(db), { logger: app.log });
  const metrics = new Metrics(db, pool);
  metrics.attach(app, config.metricsToken);
  if (config.logRequests) requestLog(app);
  const backend = config.deliveryWebhookUrl
    ? new WebhookDeliveryAdapter(config.deliveryWebhookUrl)
    : new LogDeliveryAdapter((obj, msg) => app.log.info(obj, msg));
  // An email profile with a mailbox sends from it; any other message goes to the backend above.
  const smtp = new SmtpDeliveryAdapter({
    unsubscribe: { publicUrl: config.publicUrl, secret: await sharedSecret(db, UNSUBSCRIBE_SECRET) },
    ...(dkimKeys && { dkimKeys }),
  });
  const adapter = new ProfileDeliveryAdapter((profileId) => profiles.mailbox(profileId), smtp, backend);
  const telemetry = options.telemetry ?? false;
  const { retryDelayMs, attempts, leaseMs } = config.delivery;
  const outbox = new OutboxWorker(db, adapter, { logger: app.log, clock, telemetry, baseDelayMs: retryDelayMs, maxAttempts: attempts, leaseMs });
  const sequencer = new Sequencer(new SequencingStore(db, kind), {
    clock,
    logger: app.log,
    // Deliver what a tick queued without waiting for the outbox's next poll.
    onQueued: () => void outbox.drain().catch((err: unknown) => app.log.error({ err }, 'outbox drain failed')),
    telemetry,
  });

  // Without REDIS_URL the /mcp limits are counted in memory, by each instance alone.
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, app.log, config.redisKeyPrefix).catch(async (err: unknown) => {
        await db.destroy();
        throw err;
      })
    : undefined;
  const perMinute = (max: number) => max > 0 && { max, windowMs: 60_000 };
  const services: Services = { accounts, campaigns, leads, messages, stats, reviews, approvals, links, outbox };
  const mcp: McpServerOptions<Services, AccountClaims> = {
    definition: serverDefinition,
    handlers,
    resourceHandlers,
    promptHandlers,
    services,
    // Always, production too: a result that breaks its declared outputSchema fails the call with
    // INVALID_RESULT naming the tool and the field (and a log line), rather than reaching a client
    // that validates it (the SDK does) and fails with less to go on. A precompiled check costs
    // microseconds a call (README, Performance).
    validateResults: options.validateResults ?? true,
    describeOutage: describeStoreOutage,
    // Every instance seals and opens 2026-07-28 input rounds with the same secret, from the store.
    inputStateSecret: await sharedSecret(db, 'mcp-request-state'),
    // Tasks live in the database, so that any instance answers tasks/get.
    taskStore: new SqlTaskStore(db),
    onToolCall: (event) => {
      activity.record(event);
      metrics.toolCall(event);
    },
  };
  await app.register(mcpHttp<Services, AccountClaims>, {
    ...mcp,
    authenticator,
    publicUrl: config.publicUrl,
    allowedOrigins: config.allowedOrigins,
    allowedHosts: config.allowedHosts,
    telemetry,
    inputRelay,
    authFailureLimit: perMinute(config.authFailuresPerMinute),
    requestLimits: { perToken: perMinute(config.requestsPerMinutePerToken), perAddress: perMinute(config.requestsPerMinutePerAddress) },
    ...(redis && { rateLimitRedis: redis }),
  });
  await app.register(resourceMetadata, {
    resource: tokenSettings.audience,
    authorizationServers: [config.publicUrl],
    scopes: serverDefinition.scopes.map((s) => s.name),
    resourceName: appName,
  });

  const cookieKeys = [await sharedSecret(db, 'oauth-cookie-signing')];
  const oauth = new OAuthServer(keys, async (key) =>
    (await import('./oauth/provider.ts')).createOAuthProvider({
      issuer: config.publicUrl,
      resource: tokenSettings.audience,
      scopes: serverDefinition.scopes.map((s) => s.name),
      db,
      accounts,
      hooks: { grantDestroyed: async (grantId) => void (await authorizations.revoke([grantId], 'revoked')) },
      revokeAccessToken: (token, clientId) => authorizations.revokeAccessToken(token, clientId),
      signingJwk: key.privateJwk,
      cookieKeys,
      secureCookies: secure,
      appName,
      ...(options.accessTokenTtlSeconds !== undefined && { accessTokenTtlSeconds: options.accessTokenTtlSeconds }),
    }),
  );
  await app.register(oauthRoutes, { server: oauth, db, secure });
  await app.register(webApp, {
    appName,
    serverName: serverDefinition.info.name,
    mcpUrl: tokenSettings.audience,
    scopes: serverDefinition.scopes,
    db,
    accounts,
    campaigns,
    leads,
    messages,
    profiles,
    stats,
    suppressions,
    reviews,
    approvals,
    dashboard: new DashboardStore(db),
    authorizations,
    oauth,
    secure,
    ...(demoAllowed(config) && { demoEmail: DEMO.email }),
  });

  if (config.inboundWebhookSecret) await app.register(inboundWebhook, { secret: config.inboundWebhookSecret, messages });
  app.get('/.well-known/jwks.json', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.publicJwks();
  });
  // Alive: the process answers. Ready: the store answers too (migrations ran before listening).
  app.get('/healthz', async () => {
    return { status: 'ok', server: serverDefinition.info };
  });
  readiness(app, db);

  // Replies, automatic answers and bounces from each email profile's mailbox, read over IMAP.
  const mailboxReaders = new MailboxReaders({
    store: new MailboxReaderStore(db),
    inbound: new InboundMailStore(messages),
    profiles,
    logger: app.log,
    // A mail client's unsubscribe (the List-Unsubscribe mailto): the same one function as the one-click URL's.
    onUnsubscribe: async ({ token }) => void (await applyUnsubscribe({ db, suppressions }, token, 'mailto')),
    leaseMs: config.mailboxLeaseMs,
    refreshMs: config.mailboxLeaseMs / 4,
    pollMs: config.mailboxPollMs,
    ...options.mailboxReaders,
  });
  const housekeeping = new Housekeeping(db, app.log);
  app.addHook('onReady', async () => {
    outbox.start();
    if (options.autoTick !== false) sequencer.start();
    activity.start();
    housekeeping.start();
    mailboxReaders.start();
    keys.startRefreshing(undefined, (err) => app.log.warn({ err }, 'could not read the signing keys; trying again'));
    await revocations.start();
    await inputRelay.start();
  });
  app.addHook('onClose', async () => {
    housekeeping.stop();
    keys.stopRefreshing();
    await sequencer.stop();
    await Promise.all([outbox.stop(), activity.stop(), revocations.stop(), inputRelay.stop(), mailboxReaders.stop()]);
    // After the outbox stopped: no send is under way on the pooled SMTP connections.
    adapter.close();
    await redis?.quit();
  });
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
    profiles,
    outbox,
    keys,
    authorizations,
    authenticator,
    activity,
    sequencer,
    mailboxReaders,
    mcp,
    issueToken: opened.issueToken,
    async revokeGrant(grantId) {
      await authorizations.revoke([grantId], 'removed');
    },
    async close() {
      await app.close();
      await db.destroy();
    },
  };
}
