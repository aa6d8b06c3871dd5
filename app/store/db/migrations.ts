/**
 * Versioned migrations, written with Kysely's schema builder so that one definition serves
 * SQLite and PostgreSQL. Run at start by Kysely's Migrator (which locks against concurrent runs).
 * Never edit a migration that has shipped: add the next one.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { kindOf } from './kind.ts';

const migrations: Record<string, Migration> = {
  '0001_accounts_profiles_grants_keys_campaigns': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('profiles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('daily_limit', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('profiles_account').on('profiles').column('account_id').execute();
      await db.schema
        .createTable('profile_daily_usage')
        .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('profile_daily_usage_pk', ['profile_id', 'day'])
        .execute();
      await db.schema
        .createTable('grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('retired_at', 'text')
        .execute();
      await db.schema
        .createTable('campaigns')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('campaigns_profile').on('campaigns').columns(['profile_id', 'created_at']).execute();
      await db.schema
        .createTable('steps')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('subject', 'text')
        .addColumn('delay_days', 'integer', (c) => c.notNull())
        .addColumn('fallback_text', 'text')
        .addColumn('auto_fallback', 'integer', (c) => c.notNull())
        .addUniqueConstraint('steps_campaign_position', ['campaign_id', 'position'])
        .execute();
    },
  },
  '0002_campaign_details_leads_messages_outbox': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('campaigns').addColumn('schedule', 'text').execute();
      await db.schema.alterTable('campaigns').addColumn('settings', 'text').execute();
      await db.schema
        .alterTable('campaigns')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('campaigns_account_status').on('campaigns').columns(['account_id', 'status']).execute();
      await db.schema
        .createTable('leads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
        .addColumn('first_name', 'text')
        .addColumn('last_name', 'text')
        .addColumn('company', 'text')
        .addColumn('position', 'text')
        .addColumn('title', 'text')
        .addColumn('location', 'text')
        .addColumn('industry', 'text')
        .addColumn('email', 'text')
        .addColumn('profile_url', 'text')
        .addColumn('custom_fields', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('dedupe_key', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('leads_campaign_dedupe').on('leads').columns(['campaign_id', 'dedupe_key']).unique().execute();
      await db.schema.createIndex('leads_campaign_created').on('leads').columns(['campaign_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('conversations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id'))
        .addColumn('lead_id', 'text', (c) => c.references('leads.id'))
        .addColumn('campaign_id', 'text', (c) => c.references('campaigns.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_message_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('conversations_profile_last').on('conversations').columns(['profile_id', 'last_message_at']).execute();
      await db.schema.createIndex('conversations_profile_lead').on('conversations').columns(['profile_id', 'lead_id']).execute();
      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id'))
        .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id'))
        .addColumn('lead_id', 'text', (c) => c.references('leads.id'))
        .addColumn('step_id', 'text')
        .addColumn('direction', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('subject', 'text')
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('messages_profile_idempotency').on('messages').columns(['profile_id', 'idempotency_key']).unique().execute();
      await db.schema.createIndex('messages_conversation_created').on('messages').columns(['conversation_id', 'created_at']).execute();
      await db.schema.createIndex('messages_lead').on('messages').columns(['lead_id', 'direction']).execute();
      await db.schema
        .createTable('outbox')
        .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id'))
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
    },
  },
  '0003_web_sessions_oauth_activity': {
    async up(db: Kysely<unknown>) {
      // Secrets every instance must share (cookie signing keys), created once by whichever instance asks first.
      await db.schema
        .createTable('app_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // Web sign-in sessions; the id is stored hashed, so a copy of the database opens no session.
      await db.schema
        .createTable('web_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('web_sessions_expires').on('web_sessions').column('expires_at').execute();
      await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
      // What the OAuth authorization server (oidc-provider) keeps: clients, codes, refresh tokens, grants, interactions.
      await db.schema
        .createTable('oauth_models')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('uid', 'text')
        .addColumn('user_code', 'text')
        .addColumn('expires_at', 'text')
        .addColumn('consumed_at', 'text')
        .addPrimaryKeyConstraint('oauth_models_pk', ['model', 'id'])
        .execute();
      await db.schema.createIndex('oauth_models_grant').on('oauth_models').column('grant_id').execute();
      await db.schema.createIndex('oauth_models_uid').on('oauth_models').columns(['model', 'uid']).execute();
      await db.schema.createIndex('oauth_models_expires').on('oauth_models').column('expires_at').execute();
      // Grants of both kinds (the MCP dialog and OAuth connectors) live in one table.
      await db.schema
        .alterTable('grants')
        .addColumn('kind', 'text', (c) => c.notNull().defaultTo('cli'))
        .execute();
      await db.schema.alterTable('grants').addColumn('client_name', 'text').execute();
      await db.schema.alterTable('grants').addColumn('revoked_reason', 'text').execute();
      await db.schema.createIndex('grants_user').on('grants').columns(['user_id', 'revoked_at']).execute();
      await db.schema.createIndex('grants_revoked').on('grants').column('revoked_at').execute();
      // Fixed-window counters for rate limits that every instance must share (sign-in attempts).
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .addColumn('window_ends_at', 'text', (c) => c.notNull())
        .execute();
      // The activity list of the dashboard: one row per tool call (no arguments, no message bodies).
      await db.schema
        .createTable('tool_calls')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('client_id', 'text')
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tool_calls_user_created').on('tool_calls').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('tool_calls_created').on('tool_calls').column('created_at').execute();
    },
  },
  '0004_sequencer': {
    async up(db: Kysely<unknown>) {
      // Where each lead is in its campaign's sequence (see app/sequencing): the next step to send
      // (1-based position), when it becomes due, and the outcome once the sequence ended.
      await db.schema
        .alterTable('leads')
        .addColumn('sequence_status', 'text', (c) => c.notNull().defaultTo('pending'))
        .execute();
      await db.schema
        .alterTable('leads')
        .addColumn('next_step', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('leads').addColumn('next_due_at', 'text').execute();
      await db.schema.alterTable('leads').addColumn('last_sent_at', 'text').execute();
      await db.schema.alterTable('leads').addColumn('sequence_error', 'text').execute();
      // The sequencer's due query: one campaign's waiting leads in due order.
      await db.schema.createIndex('leads_campaign_sequence').on('leads').columns(['campaign_id', 'sequence_status', 'next_due_at', 'id']).execute();
      await db.schema.createIndex('campaigns_status').on('campaigns').column('status').execute();
      // Messages a campaign sent per local day (its schedule's time zone), for settings.daily_limit.
      await db.schema
        .createTable('campaign_daily_usage')
        .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('campaign_daily_usage_pk', ['campaign_id', 'day'])
        .execute();
      // Leads removed before this migration are out of any sequence.
      await db
        .updateTable('leads' as never)
        .set({ sequence_status: 'removed' } as never)
        .where('status' as never, '=', 'removed' as never)
        .execute();
    },
  },
  '0005_mcp_tasks': {
    async up(db: Kysely<unknown>) {
      // Tasks of the MCP tasks extension (runtime/tasks.ts): any instance answers tasks/get from here.
      await db.schema
        .createTable('mcp_tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('caller', 'text', (c) => c.notNull())
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_message', 'text')
        .addColumn('input_requests', 'text')
        .addColumn('input_responses', 'text')
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_updated_at', 'text', (c) => c.notNull())
        .addColumn('ttl_ms', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mcp_tasks_expires').on('mcp_tasks').column('expires_at').execute();
    },
  },
  '0006_grant_usage': {
    async up(db: Kysely<unknown>) {
      // The MCP dialog's list of authorizations shows when each was last used and when its token
      // expires: the expiry of the token a dialog or CLI grant was minted with, and an index to
      // find a grant's latest tool call.
      await db.schema.alterTable('grants').addColumn('token_expires_at', 'text').execute();
      await db.schema.createIndex('tool_calls_grant_created').on('tool_calls').columns(['grant_id', 'created_at']).execute();
      // The activity list names who acted (an assistant through a grant, or the person on the
      // web), what it touched, and a failure's message.
      for (const column of ['actor', 'campaign_id', 'lead_id', 'error_message']) await db.schema.alterTable('tool_calls').addColumn(column, 'text').execute();
    },
  },
  '0007_profile_mailboxes': {
    async up(db: Kysely<unknown>) {
      // An email profile's mailbox: where it sends from (SMTP) and reads replies (IMAP). A table of
      // its own, so that no query of the profiles (the `profiles` tool, the sequencer) can carry
      // a password by accident. The passwords are sealed with KEY_ENCRYPTION_KEY (store/profiles.ts).
      await db.schema
        .createTable('profile_mailboxes')
        .addColumn('profile_id', 'text', (c) => c.primaryKey().references('profiles.id'))
        .addColumn('from_name', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text', (c) => c.notNull())
        .addColumn('smtp_host', 'text', (c) => c.notNull())
        .addColumn('smtp_port', 'integer', (c) => c.notNull())
        .addColumn('smtp_tls', 'text', (c) => c.notNull())
        .addColumn('smtp_user', 'text', (c) => c.notNull())
        .addColumn('smtp_password', 'text', (c) => c.notNull())
        .addColumn('imap_host', 'text', (c) => c.notNull())
        .addColumn('imap_port', 'integer', (c) => c.notNull())
        .addColumn('imap_tls', 'text', (c) => c.notNull())
        .addColumn('imap_user', 'text', (c) => c.notNull())
        .addColumn('imap_password', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // Named for what it adds, not only its number: another 0008 may land beside it; a renumber at
  // merge is then a rename of this key (Kysely runs migrations in the order of their names).
  '0008_message_email_ids': {
    async up(db: Kysely<unknown>) {
      // The Message-ID header an email went out with: a follow-up's In-Reply-To and References are
      // built from it, and a reply's are matched back to the message by it.
      await db.schema.alterTable('messages').addColumn('email_message_id', 'text').execute();
      await db.schema.createIndex('messages_email_message_id').on('messages').column('email_message_id').execute();
    },
  },
  // Issue 28's unsubscribe work (0009: 0008_message_email_ids landed first).
  '0009_suppressions': {
    async up(db: Kysely<unknown>) {
      // An account's suppression list: addresses (lower-cased) that no campaign of the account
      // sends to again (app/store/suppressions.ts). `source`: one-click, page, mailto or manual;
      // the lead and campaign the unsubscribe came from, when known.
      await db.schema
        .createTable('suppressions')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('lead_id', 'text')
        .addColumn('campaign_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('suppressions_pk', ['account_id', 'address'])
        .execute();
      // An unsubscribe stops every lead of the account with that address, whatever its campaign.
      await db.schema
        .createIndex('leads_account_address')
        .on('leads')
        .expression(sql`account_id, lower(email)`)
        .execute();
    },
  },
  // Issue 28's mailbox readers (0010: 0009_suppressions landed first).
  '0010_mailbox_readers': {
    async up(db: Kysely<unknown>) {
      // Where each email profile's mailbox reader is in its INBOX (the IMAP UIDVALIDITY and the
      // last UID it processed), and which instance reads it now (a lease, as the outbox's rows
      // have): one reader a mailbox, and nothing read twice after a restart (mailbox/readers.ts).
      await db.schema
        .createTable('mailbox_readers')
        .addColumn('profile_id', 'text', (c) => c.primaryKey().references('profiles.id'))
        .addColumn('uid_validity', 'text')
        .addColumn('last_uid', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('holder', 'text')
        .addColumn('lease_until', 'text')
        .execute();
      // An out-of-office or other automatic answer is kept on the conversation but is not a reply.
      await db.schema.alterTable('messages').addColumn('automatic', 'integer').execute();
    },
  },
  '0011_mcp_input_waits': {
    async up(db: Kysely<unknown>) {
      // Handshake-era questions waiting for the client's answer, so that the answer may reach any
      // instance and be handed to the one whose call waits (app/input-relay.ts).
      await db.schema
        .createTable('mcp_input_waits')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('caller', 'text', (c) => c.notNull())
        .addColumn('answer', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mcp_input_waits_expires').on('mcp_input_waits').column('expires_at').execute();
    },
  },
  '0012_mcp_task_leases': {
    async up(db: Kysely<unknown>) {
      // The instance running a task renews a lease on it; a task whose lease ended (its instance
      // died) is failed by the next instance that reads it (runtime/tasks.ts).
      await db.schema.alterTable('mcp_tasks').addColumn('lease_expires_at', 'text').execute();
    },
  },
  // Issue 29's approval policy.
  '0013_approval_policy': {
    async up(db: Kysely<unknown>) {
      // "Campaigns my assistant starts wait for my approval": on for accounts created from now on
      // (AccountStore.createAccount writes it), off for those that exist, whose assistants start
      // campaigns at once today; nothing changes under them until their person turns it on.
      await db.schema
        .alterTable('accounts')
        .addColumn('require_approval', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // When a campaign last went awaiting_approval, and from which state (a rejection returns it there).
      await db.schema.alterTable('campaigns').addColumn('approval_requested_at', 'text').execute();
      await db.schema.alterTable('campaigns').addColumn('approval_requested_from', 'text').execute();
      // Approvals an assistant asked for (approve_campaign): the page the person decides on (store/approvals.ts).
      await db.schema
        .createTable('campaign_approvals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('profile_id', 'text', (c) => c.notNull())
        .addColumn('campaign_id', 'text', (c) => c.notNull())
        .addColumn('round', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('decision', 'text')
        .addColumn('decided_at', 'text')
        .addColumn('decided_version', 'integer')
        .execute();
      // One request per campaign, user, authorization and wait: an assistant asking again (or a
      // 2026-07-28 call running again with the answer) finds the same page.
      await db.schema
        .createIndex('campaign_approvals_round')
        .on('campaign_approvals')
        .columns(['campaign_id', 'user_id', 'grant_id', 'round'])
        .unique()
        .execute();
    },
  },
  // Issue 28's exactly-once over SMTP (app/delivery/outbox-worker.ts, docs/decisions.md).
  '0014_outbox_end_of_data': {
    async up(db: Kysely<unknown>) {
      // attempt_id: the attempt that holds the row, named by its every write (a fencing token: an
      // attempt that outlived its lease writes nothing). end_of_data_at: the attempt was about to send
      // the end of the message's data, after which the server may hold it: not to be sent again.
      await db.schema.alterTable('outbox').addColumn('attempt_id', 'text').execute();
      await db.schema.alterTable('outbox').addColumn('end_of_data_at', 'text').execute();
    },
  },
  // Issue 28's mailbox readers: a first read and a UIDVALIDITY change (app/mailbox/mailbox-reader.ts, docs/decisions.md).
  '0015_mailbox_reader_places': {
    async up(db: Kysely<unknown>) {
      // mailbox_key: the mailbox the place is in (user at host); last_arrival and last_message_id: the
      // last email processed (its arrival, its Message-ID), by which reading resumes when UIDs change.
      for (const column of ['mailbox_key', 'last_arrival', 'last_message_id'])
        await db.schema.alterTable('mailbox_readers').addColumn(column, 'text').execute();
      // A place stored before: mail older than now was read by UID.
      await sql`update mailbox_readers set last_arrival = ${new Date().toISOString()}`.execute(db);
    },
  },
  // Issue 25: the sequencer's messages are queued without a Message-ID (it is set when the email is
  // sent, and never for another channel), and every one of them was an entry in this index. Only
  // the ids it is searched by (a reply's In-Reply-To, a bounce's original) are indexed now: both
  // stores use a partial index for `email_message_id = ?`, which implies not null (look ids up with
  // `=`: for `in (...)` SQLite's planner takes another index).
  '0016_message_email_ids_partial': {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('messages_email_message_id').execute();
      await db.schema
        .createIndex('messages_email_message_id')
        .on('messages')
        .column('email_message_id')
        .where(sql.ref('email_message_id'), 'is not', null)
        .execute();
    },
  },
  // Issue 25, PostgreSQL only: a message's and a conversation's account_id and profile_id are copies
  // (of the conversation's, and of the lead's campaign's), written by the store from rows it read in
  // the same transaction, and nothing deletes an account, or a profile that has a conversation
  // (ProfileStore.remove disconnects it instead). Their foreign keys checked each copy again per
  // row, each check a query and a row lock: 4 of the 9 checks of a sequenced message, and 20% of
  // the sequencer's time (docs/decisions.md, "Foreign keys on PostgreSQL"). The keys that are not
  // copies stayed then (0020 dropped them later): a message's conversation and lead, a
  // conversation's lead and campaign. SQLite keeps all of them: its checks are index lookups, and it
  // cannot drop a constraint without rebuilding the table.
  '0017_postgres_copy_foreign_keys': {
    async up(db: Kysely<unknown>) {
      if (kindOf(db) !== 'postgres') return;
      await sql`alter table messages drop constraint if exists messages_account_id_fkey, drop constraint if exists messages_profile_id_fkey`.execute(db);
      await sql`alter table conversations drop constraint if exists conversations_account_id_fkey, drop constraint if exists conversations_profile_id_fkey`.execute(
        db,
      );
    },
  },
  // Issue 25, PostgreSQL only: two more copies. A message's lead_id is its conversation's
  // (MessageStore and the sequencer write the one they resolved the conversation by), and a
  // conversation's campaign_id is its lead's campaign, read in the same transaction; nothing deletes
  // a lead (removing one marks it) or a campaign (archiving keeps it). Their checks were 8% of the
  // sequencer's time on PostgreSQL (docs/decisions.md, "Foreign keys on PostgreSQL"). The keys that
  // remained, the ones no other key implies (a message's conversation, a conversation's lead, an
  // outbox entry's message), went in 0020.
  '0018_postgres_more_copy_foreign_keys': {
    async up(db: Kysely<unknown>) {
      if (kindOf(db) !== 'postgres') return;
      await sql`alter table messages drop constraint if exists messages_lead_id_fkey`.execute(db);
      await sql`alter table conversations drop constraint if exists conversations_campaign_id_fkey`.execute(db);
    },
  },
  // Issue 25: an unsubscribe finds the account's leads with an address through the campaigns'
  // dedupe index (store/suppressions.ts), so the leads' own index on the address goes: every
  // sequenced message updates its lead, and every index of the lead is written again on each update
  // (the update changes indexed columns, so PostgreSQL cannot make it a HOT update). Without this
  // one, 7% less of the sequencer's time on PostgreSQL (docs/performance.md).
  '0019_leads_without_address_index': {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('leads_account_address').execute();
    },
  },
  // Issue 25, PostgreSQL only: the last keys of the rows the sequencer writes, a conversation's lead,
  // a message's conversation and an outbox entry's message. Each is written in the transaction that
  // writes or locks the row it points at, and nothing deletes a lead, a conversation or a message;
  // their checks, a query and a row lock per row, were 27% of the PostgreSQL server's CPU in the
  // sequencer (docs/decisions.md, "Foreign keys on PostgreSQL"). SQLite keeps them, and every suite
  // runs on it; the durability suite counts orphans on both stores after its kills.
  '0020_postgres_sequenced_row_keys': {
    async up(db: Kysely<unknown>) {
      if (kindOf(db) !== 'postgres') return;
      await sql`alter table conversations drop constraint if exists conversations_lead_id_fkey`.execute(db);
      await sql`alter table messages drop constraint if exists messages_conversation_id_fkey`.execute(db);
      await sql`alter table outbox drop constraint if exists outbox_message_id_fkey`.execute(db);
    },
  },
  // Issue 30: every instance sweeps for tasks under way whose lease ended (their instance died) and
  // fails them (runtime/tasks.ts, sweepAbandoned); this index keeps that sweep off the rest of the table.
  '0021_mcp_task_lease_sweep': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('mcp_tasks_under_way_lease').on('mcp_tasks').columns(['status', 'lease_expires_at']).execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
