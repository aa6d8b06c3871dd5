/**
 * The runtime's TaskStore on the app's database (SQLite or PostgreSQL): tasks of the MCP tasks
 * extension outlive the request that created them and are read by whichever instance the client
 * polls. JSON fields are stored as text. Expired tasks are deleted by housekeeping (deleteExpired);
 * tasks whose instance died are listed for the runtime's sweep (abandoned).
 */
import { UNDER_WAY, type TaskRecord, type TaskStore } from 'mcpyard';
import type { Db } from './db/database.ts';
import type { McpTasksTable } from './schema.ts';

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const parsed = <T>(text: string | null): T | undefined => (text === null ? undefined : (JSON.parse(text) as T));

function toRecord(row: McpTasksTable): TaskRecord {
  return {
    id: row.id,
    caller: row.caller,
    tool: row.tool,
    status: row.status as TaskRecord['status'],
    ...(row.status_message !== null && { statusMessage: row.status_message }),
    ...(row.input_requests !== null && { inputRequests: parsed(row.input_requests)! }),
    ...(row.input_responses !== null && { inputResponses: parsed(row.input_responses)! }),
    ...(row.result !== null && { result: parsed(row.result)! }),
    ...(row.error !== null && { error: parsed(row.error)! }),
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
    ttlMs: row.ttl_ms,
    ...(row.lease_expires_at !== null && { leaseExpiresAt: row.lease_expires_at }),
  };
}

export class SqlTaskStore implements TaskStore {
  constructor(private readonly db: Db) {}

  async create(task: TaskRecord): Promise<void> {
    await this.db
      .insertInto('mcp_tasks')
      .values({
        id: task.id,
        caller: task.caller,
        tool: task.tool,
        status: task.status,
        status_message: task.statusMessage ?? null,
        input_requests: json(task.inputRequests),
        input_responses: json(task.inputResponses),
        result: json(task.result),
        error: json(task.error),
        created_at: task.createdAt,
        last_updated_at: task.lastUpdatedAt,
        ttl_ms: task.ttlMs,
        expires_at: new Date(Date.parse(task.createdAt) + task.ttlMs).toISOString(),
        lease_expires_at: task.leaseExpiresAt ?? null,
      })
      .execute();
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const row = await this.db.selectFrom('mcp_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async update(id: string, patch: Parameters<TaskStore['update']>[1]): Promise<boolean> {
    const set: Partial<McpTasksTable> = {};
    if (patch.status !== undefined) set.status = patch.status;
    if ('statusMessage' in patch) set.status_message = patch.statusMessage ?? null;
    if ('inputRequests' in patch) set.input_requests = json(patch.inputRequests);
    if ('inputResponses' in patch) set.input_responses = json(patch.inputResponses);
    if ('result' in patch) set.result = json(patch.result);
    if ('error' in patch) set.error = json(patch.error);
    if (patch.lastUpdatedAt !== undefined) set.last_updated_at = patch.lastUpdatedAt;
    if (patch.ttlMs !== undefined) set.ttl_ms = patch.ttlMs;
    if (patch.leaseExpiresAt !== undefined) set.lease_expires_at = patch.leaseExpiresAt;
    // Only while the task is under way: one that ended on another instance stays as it ended.
    const written = await this.db
      .updateTable('mcp_tasks')
      .set(set)
      .where('id', '=', id)
      .where('status', 'in', [...UNDER_WAY])
      .executeTakeFirst();
    return Number(written.numUpdatedRows) > 0;
  }

  async abandoned(leaseEndedBefore: string, limit: number): Promise<TaskRecord[]> {
    const rows = await this.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('status', 'in', [...UNDER_WAY])
      .where('lease_expires_at', '<', leaseEndedBefore)
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  /** Deletes tasks past their life; returns how many. */
  async deleteExpired(now: Date): Promise<number> {
    const result = await this.db.deleteFrom('mcp_tasks').where('expires_at', '<', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
