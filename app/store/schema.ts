/** The database tables, as Kysely sees them. Timestamps are ISO-8601 text on both back-ends. */
import type { Generated } from 'kysely';
import type { CampaignStatus, StepType } from '../../generated/types.gen.ts';

// A campaign's states are the tools' (tools.yaml's CampaignStatus): one declaration.
export type { CampaignStatus };

export interface AccountsTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  created_at: string;
  /**
   * 1: campaigns an assistant starts wait for the person's approval (awaiting_approval); 0: they
   * start at once. New accounts: 1; accounts created before the setting existed: 0 (migration 0011).
   */
  require_approval: Generated<number>;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  password_hash: string;
  status: 'active' | 'disabled';
  created_at: string;
}

export interface ProfilesTable {
  id: string;
  account_id: string;
  name: string;
  channel: 'linkedin' | 'email';
  status: 'active' | 'paused' | 'disconnected';
  timezone: string;
  daily_limit: number;
  created_at: string;
}

/** An email profile's mailbox; the passwords are stored sealed (see store/profiles.ts). */
export interface ProfileMailboxesTable {
  profile_id: string;
  from_name: string;
  from_address: string;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: 'tls' | 'starttls' | 'none';
  smtp_user: string;
  smtp_password: string;
  imap_host: string;
  imap_port: number;
  imap_tls: 'tls' | 'starttls' | 'none';
  imap_user: string;
  imap_password: string;
  updated_at: string;
}

export interface ProfileDailyUsageTable {
  profile_id: string;
  /** YYYY-MM-DD in the profile's time zone. */
  day: string;
  sent: number;
}

export interface GrantsTable {
  id: string;
  user_id: string;
  account_id: string;
  client_id: string;
  scope: string;
  created_at: string;
  revoked_at: string | null;
  /** `dialog` (the in-app MCP dialog), `oauth` (a connector), `cli` (an admin's token). */
  kind: GrantKind;
  /** The connector's registered name, shown in the MCP dialog. */
  client_name: string | null;
  /** Why it was revoked: `removed` (by the user), `superseded` (a newer dialog authorization), `refresh_reuse`, ... */
  revoked_reason: string | null;
  /** When the access token minted with a dialog or CLI grant expires (OAuth grants renew theirs: null). */
  token_expires_at: string | null;
}

export type GrantKind = 'dialog' | 'oauth' | 'cli';

export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface WebSessionsTable {
  /** SHA-256 of the session id (the cookie holds the id itself). */
  id_hash: string;
  user_id: string | null;
  /** JSON text of the session object. */
  data: string;
  expires_at: string;
}

export interface OauthModelsTable {
  /** oidc-provider's model name: Client, Grant, Session, Interaction, AuthorizationCode, RefreshToken, ... */
  model: string;
  id: string;
  /** JSON text of the model's payload. */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: string | null;
  consumed_at: string | null;
}

export interface RateLimitsTable {
  key: string;
  hits: number;
  window_ends_at: string;
}

export type ToolCallOutcome = 'ok' | 'error' | 'denied';

/** A task of the MCP tasks extension; JSON columns hold the runtime's TaskRecord fields. */
export interface McpTasksTable {
  id: string;
  caller: string;
  tool: string;
  status: string;
  status_message: string | null;
  input_requests: string | null;
  input_responses: string | null;
  result: string | null;
  error: string | null;
  created_at: string;
  last_updated_at: string;
  ttl_ms: number;
  /** created_at + ttl_ms: when housekeeping may delete it. */
  expires_at: string;
  /** Until when the instance running it answers for it (renewed while it runs); null for tasks made before leases. */
  lease_expires_at: string | null;
}

/** A handshake-era question waiting for its answer, which any instance may receive (app/input-relay.ts). */
export interface McpInputWaitsTable {
  /** The question's JSON-RPC id (srv-<uuid>). */
  id: string;
  /** Who may answer (callerOf: the subject and the account). */
  caller: string;
  /** The answer (the JSON-RPC response's result or error, as JSON), once another instance received it. */
  answer: string | null;
  /** When housekeeping may delete it (the asking instance removes it when its call ends). */
  expires_at: string;
}

export interface ToolCallsTable {
  id: string;
  account_id: string;
  user_id: string;
  grant_id: string | null;
  client_id: string | null;
  tool: string;
  outcome: ToolCallOutcome;
  /** The catalog code of a failed call (INVALID_ARGUMENTS, CAMPAIGN_NOT_FOUND, INSUFFICIENT_SCOPE, ...). */
  error_code: string | null;
  duration_ms: number;
  created_at: string;
  /** `web`: the person, on the web pages; null: an assistant, through the grant. */
  actor: ToolCallActor | null;
  /** What the call touched, when it named a campaign or a lead. */
  campaign_id: string | null;
  lead_id: string | null;
  /** A failed call's message, as the client got it. */
  error_message: string | null;
}

export type ToolCallActor = 'web';

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  /** Set when a newer key replaced it; it still verifies tokens until they have all expired. */
  retired_at: string | null;
}

export interface CampaignsTable {
  id: string;
  account_id: string;
  profile_id: string;
  name: string;
  status: CampaignStatus;
  created_at: string;
  updated_at: string;
  /** JSON text: sending window (time zone, days, hours). */
  schedule: string | null;
  /** JSON text: campaign settings. */
  settings: string | null;
  /**
   * Bumped by every write to the campaign (under its lock), its leads' too: the revision a review
   * shows, which an approval must match (a change after the person looked makes them look again).
   */
  version: number;
  /** When it last went awaiting_approval (an assistant's start with the policy on); the approval requests of that wait name it. */
  approval_requested_at: string | null;
  /** Where it waited from (draft, or paused for a resume): where a rejection returns it. */
  approval_requested_from: CampaignStatus | null;
}

/**
 * A person's approval asked for by an assistant (approve_campaign): the page of the web app the
 * client opens for the person (`/app/approvals/<id>`), whom it is for and through which
 * authorization, and what the person decided. The id is not a key: the page needs that user's own
 * session. One per campaign, user, authorization and wait (`round`).
 */
export interface CampaignApprovalsTable {
  id: string;
  account_id: string;
  user_id: string;
  profile_id: string;
  campaign_id: string;
  /** The campaign's approval_requested_at of the wait it belongs to. */
  round: string;
  /** The authorization the asking client used: activity names the client ("You, in Claude"). */
  grant_id: string;
  client_id: string | null;
  created_at: string;
  expires_at: string;
  /** `approved` or `rejected` (on this page or the campaign's), once decided. */
  decision: ApprovalDecision | null;
  decided_at: string | null;
  /** The campaign revision the person approved. */
  decided_version: number | null;
}

export type ApprovalDecision = 'approved' | 'rejected';

export interface StepsTable {
  id: string;
  campaign_id: string;
  position: number;
  name: string;
  type: StepType;
  text: string;
  subject: string | null;
  delay_days: number;
  fallback_text: string | null;
  /** 0/1 on SQLite, kept as an integer on both back-ends for one set of queries. */
  auto_fallback: number;
}

export interface LeadsTable {
  id: string;
  account_id: string;
  campaign_id: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  position: string | null;
  title: string | null;
  location: string | null;
  industry: string | null;
  email: string | null;
  profile_url: string | null;
  /** JSON text: custom fields, used as {custom.<field>} placeholders. */
  custom_fields: string | null;
  status: 'active' | 'replied' | 'removed';
  /** Identity within a campaign (email, else profile URL, else name and company); NULL once removed. */
  dedupe_key: string | null;
  created_at: string;
  /** Defaults to `pending` (see SequenceStatus). */
  sequence_status: Generated<SequenceStatus>;
  /** The position (from 1) of the next step to send; steps before it were sent. Defaults to 1. */
  next_step: Generated<number>;
  /** When the next step becomes due (the campaign's window and limits still apply); NULL unless waiting. */
  next_due_at: string | null;
  last_sent_at: string | null;
  /** Why the sequence failed (a message that could not be delivered). */
  sequence_error: string | null;
}

/**
 * A lead in its campaign's sequence: `pending` until the campaign is active, `waiting` for its
 * next step, then `finished` (every step sent), `replied` (stopped by a reply), `failed` (a message
 * could not be delivered), `unsubscribed` (the address is on the account's suppression list) or `removed`.
 */
export type SequenceStatus = 'pending' | 'waiting' | 'finished' | 'replied' | 'failed' | 'unsubscribed' | 'removed';

/** How an address came onto the suppression list. */
export type SuppressionSource = 'one-click' | 'page' | 'mailto' | 'manual';

/** An account's suppressed address: no campaign of the account sends to it again. */
export interface SuppressionsTable {
  account_id: string;
  /** Lower-cased. */
  address: string;
  source: SuppressionSource;
  /** The lead (and its campaign) the unsubscribe came from, when known. */
  lead_id: string | null;
  campaign_id: string | null;
  created_at: string;
}

export interface CampaignDailyUsageTable {
  campaign_id: string;
  /** YYYY-MM-DD in the campaign's time zone (its schedule's, else its profile's). */
  day: string;
  sent: number;
}

export interface ConversationsTable {
  id: string;
  account_id: string;
  profile_id: string;
  lead_id: string | null;
  campaign_id: string | null;
  created_at: string;
  last_message_at: string;
}

export interface MessagesTable {
  id: string;
  account_id: string;
  conversation_id: string;
  profile_id: string;
  lead_id: string | null;
  step_id: string | null;
  direction: 'outbound' | 'inbound';
  status: 'queued' | 'delivered' | 'dry_run' | 'failed' | 'received';
  subject: string | null;
  text: string;
  idempotency_key: string | null;
  created_at: string;
  delivered_at: string | null;
  error: string | null;
  /** The Message-ID header (`<id@domain>`) of an email a server accepted, or of one read from the mailbox; null otherwise. */
  email_message_id: string | null;
  /** 1 for an inbound automatic answer (out of office, auto-reply): shown, not counted as a reply. */
  automatic?: number | null;
}

/** Where an email profile's mailbox reader is in its INBOX, and which instance holds it. */
export interface MailboxReadersTable {
  profile_id: string;
  uid_validity: string | null;
  last_uid: Generated<number>;
  holder: string | null;
  lease_until: string | null;
  /** Which mailbox the place is in (its IMAP user at its host): another one starts afresh. */
  mailbox_key?: string | null;
  /** When the last email processed arrived (IMAP INTERNALDATE), or when the mailbox was connected: older mail is not read. */
  last_arrival?: string | null;
  /** The Message-ID of the last email processed: after a UIDVALIDITY change, reading goes on after it. */
  last_message_id?: string | null;
}

export interface OutboxTable {
  message_id: string;
  /** `cancelled`: never sent, because the address was suppressed before it went (last_error says so). */
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  last_error: string | null;
  /** The attempt that holds the row now, `<host>/<pid>/<uuid>` (a fencing token: its writes name it), or null. */
  attempt_id?: string | null;
  /** When an attempt of the message was about to send the end of its data (SMTP's point of no return), its outcome not yet recorded. */
  end_of_data_at?: string | null;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  profiles: ProfilesTable;
  profile_daily_usage: ProfileDailyUsageTable;
  profile_mailboxes: ProfileMailboxesTable;
  campaign_daily_usage: CampaignDailyUsageTable;
  grants: GrantsTable;
  signing_keys: SigningKeysTable;
  campaigns: CampaignsTable;
  steps: StepsTable;
  leads: LeadsTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  outbox: OutboxTable;
  mailbox_readers: MailboxReadersTable;
  app_secrets: AppSecretsTable;
  web_sessions: WebSessionsTable;
  oauth_models: OauthModelsTable;
  rate_limits: RateLimitsTable;
  tool_calls: ToolCallsTable;
  mcp_tasks: McpTasksTable;
  mcp_input_waits: McpInputWaitsTable;
  suppressions: SuppressionsTable;
  campaign_approvals: CampaignApprovalsTable;
}
