/**
 * The end of a durability run: every acknowledged write compared with the store (a write is lost
 * when what its answer named is not there, or not as answered), and the acknowledged calls that
 * are safe to repeat asked again, which must answer their first result.
 */
import { sql } from 'kysely';
import type { Db } from '../../app/store/db/database.ts';
import type { Ledger } from './ledger.ts';
import { askTool } from './tool-answer.ts';
import type { WriterTarget } from './writers.ts';

/** Rows of `table` whose id is in `ids`, by id; 500 ids a query (SQLite's bound on parameters). */
async function rowsById(db: Db, table: 'campaigns' | 'leads' | 'messages', ids: string[]): Promise<Map<string, any>> {
  const rows: any[] = [];
  for (let i = 0; i < ids.length; i += 500)
    rows.push(...(await sql`select * from ${sql.table(table)} where id in (${sql.join(ids.slice(i, i + 500))})`.execute(db)).rows);
  return new Map(rows.map((r) => [r.id, r]));
}

/** Each acknowledged write missing from the store or different there, described; empty when none is lost. */
export async function lostWrites(db: Db, ledger: Ledger): Promise<string[]> {
  const lost: string[] = [];
  const campaigns = await rowsById(db, 'campaigns', [...ledger.campaigns.keys()]);
  for (const [id, name] of ledger.campaigns) if (campaigns.get(id)?.name !== name) lost.push(`create_campaign ${id} (${name})`);

  const leads = await rowsById(
    db,
    'leads',
    ledger.leadBatches.flatMap((b) => b.leadIds),
  );
  for (const batch of ledger.leadBatches) {
    const missing = batch.leadIds.filter((id, i) => leads.get(id)?.email !== batch.leads[i]!.email || leads.get(id)?.campaign_id !== batch.campaignId);
    if (missing.length) lost.push(`add_leads to ${batch.campaignId}: ${missing.join(', ')}`);
  }

  const messages = await rowsById(
    db,
    'messages',
    ledger.messages.map((m) => m.messageId),
  );
  for (const m of ledger.messages) {
    const row = messages.get(m.messageId);
    if (row?.idempotency_key !== m.key || row?.lead_id !== m.leadId) lost.push(`send_message ${m.messageId} (key ${m.key})`);
  }
  return lost;
}

/**
 * The references PostgreSQL's store does not check with foreign keys (migrations 0017, 0018 and
 * 0020; SQLite checks them all), counted where they point at nothing: "messages.conversation_id 3"
 * for each reference that has any. After kills and restarts, none may.
 */
export async function orphans(db: Db): Promise<string[]> {
  const references: [table: string, column: string, parent: string][] = [
    ['outbox', 'message_id', 'messages'],
    ['messages', 'conversation_id', 'conversations'],
    ['messages', 'lead_id', 'leads'],
    ['messages', 'profile_id', 'profiles'],
    ['messages', 'account_id', 'accounts'],
    ['conversations', 'lead_id', 'leads'],
    ['conversations', 'campaign_id', 'campaigns'],
    ['conversations', 'profile_id', 'profiles'],
    ['conversations', 'account_id', 'accounts'],
  ];
  const found: string[] = [];
  for (const [table, column, parent] of references) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} c
      where c.${sql.ref(column)} is not null and not exists (select 1 from ${sql.table(parent)} p where p.id = c.${sql.ref(column)})`.execute(db);
    const n = Number(rows[0]!.n);
    if (n) found.push(`${table}.${column} ${n}`);
  }
  return found;
}

/** Leads a campaign holds twice (same email): a retried add_leads must never add a lead again. */
export async function doubledLeads(db: Db, ledger: Ledger): Promise<number> {
  const ids = [...ledger.campaigns.keys()];
  let doubled = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('leads')
      .select(['campaign_id', 'email'])
      .where('campaign_id', 'in', ids.slice(i, i + 500))
      .execute();
    doubled += rows.length - new Set(rows.map((r) => `${r.campaign_id} ${r.email}`)).size;
  }
  return doubled;
}

/**
 * Asks again (up to `sample` of each) the acknowledged send_message calls, with their keys, and
 * add_leads calls, with the same leads: each must answer its first result (the same message,
 * replayed; the same leads, as duplicates). Returns how many were asked and what did not match.
 */
export async function repeatAcknowledged(target: WriterTarget, ledger: Ledger, sample = 200): Promise<{ repeated: number; mismatches: string[] }> {
  const mismatches: string[] = [];
  const url = target.mcpUrls[0]!;
  const ask = (name: string, args: Record<string, unknown>) => askTool(url, target.token, name, { service_profile_id: target.profileId, ...args });
  const messages = ledger.messages.slice(0, sample);
  for (const m of messages) {
    const answer = await ask('send_message', { lead_id: m.leadId, text: 'Hi {first_name}', auto_fallback: true, idempotency_key: m.key });
    if (answer.kind !== 'result' || !answer.value.replayed || answer.value.message.id !== m.messageId)
      mismatches.push(`send_message key ${m.key}: first ${m.messageId}, again ${JSON.stringify(answer).slice(0, 200)}`);
  }
  const batches = ledger.leadBatches.slice(0, sample);
  for (const b of batches) {
    const answer = await ask('add_leads', { campaign_id: b.campaignId, leads: b.leads });
    const ids = answer.kind === 'result' ? answer.value.results.map((r: { lead_id: string }) => r.lead_id) : [];
    if (answer.kind !== 'result' || answer.value.added !== 0 || ids.join() !== b.leadIds.join())
      mismatches.push(`add_leads to ${b.campaignId}: first ${b.leadIds.join()}, again ${JSON.stringify(answer).slice(0, 200)}`);
  }
  return { repeated: messages.length + batches.length, mismatches };
}
