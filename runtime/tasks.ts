/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) at 2026-07-28: a tool declared
 * `task: optional|required` answers a client that declares the extension with a task handle
 * (`resultType: "task"`) and runs on; the client polls `tasks/get`, answers the task's questions
 * with `tasks/update` and may `tasks/cancel`. Task state lives in a TaskStore (the app's is its
 * database), so any instance answers `tasks/get`, `tasks/update` and `tasks/cancel`; the work
 * runs on the instance that created the task, which reads answers and cancellation from the store.
 */
import { randomUUID } from 'node:crypto';
import { taskError } from './error-mapping.ts';
import type { InputMethod } from './input-requests.ts';
import { INPUT_METHODS, InputUnavailableError } from './input-requests.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** A task as stored: the protocol's Task plus who owns it and what is outstanding. */
export interface TaskRecord {
  id: string;
  /** The caller that created it (callerOf: the subject and the server's claims): the only one who may see or change it. */
  caller: string;
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Questions outstanding while input_required, by key. */
  inputRequests?: Record<string, { method: InputMethod; params: object }>;
  /** Answers the client sent with tasks/update and the task has not taken yet, by key. */
  inputResponses?: Record<string, unknown>;
  /** The CallToolResult, when completed. */
  result?: object;
  /** The JSON-RPC error, when failed. */
  error?: object;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
}

/** Where tasks are kept. `update` writes only the fields it is given. */
export interface TaskStore {
  create(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  update(id: string, patch: Partial<Omit<TaskRecord, 'id' | 'caller' | 'tool' | 'createdAt'>>): Promise<void>;
}

/** Tasks in this process's memory: for a single instance (the conformance fixture, tests). */
export function memoryTaskStore(): TaskStore {
  const tasks = new Map<string, TaskRecord>();
  return {
    async create(task) {
      tasks.set(task.id, structuredClone(task));
    },
    async get(id) {
      const task = tasks.get(id);
      return task && structuredClone(task);
    },
    async update(id, patch) {
      const task = tasks.get(id);
      if (task) Object.assign(task, structuredClone(patch));
    },
  };
}

export interface TaskOptions {
  /** How long a task is kept after it was created (default: one hour). */
  ttlMs: number;
  /** The poll interval suggested to clients, and how often a task waiting for input looks for answers. */
  pollIntervalMs: number;
  logger: { error(obj: object, msg: string): void };
  now?: () => number;
}

/** What the task's work gets: a way to ask the client, and the signal of its cancellation. */
export interface TaskWork {
  ask(method: InputMethod, params: object, key?: string): Promise<unknown>;
  signal: AbortSignal;
}

/**
 * Whether the request may use the task of this tool: throws to refuse. The caller alone is not
 * enough: a narrower token of the same caller must not read or cancel what it could not call.
 */
export type TaskAccess = (tool: string) => void;

export class TaskNotFoundError extends Error {
  override name = 'TaskNotFoundError';
}

/** The params of a tasks/* request have the wrong shape (the request's fault, answered INVALID_PARAMS). */
export class TaskParamsError extends Error {
  override name = 'TaskParamsError';
}

export class Tasks {
  /** The work of tasks running in this process, to stop at once when cancelled here. */
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly store: TaskStore,
    private readonly options: TaskOptions,
  ) {}

  private now(): string {
    return new Date((this.options.now ?? Date.now)()).toISOString();
  }

  /**
   * Creates the task durably, starts `work` without waiting for it, and returns the serialized
   * CreateTaskResult. `work` resolves to the serialized final result (a CallToolResult) or rejects
   * with `{ code, message }` for a JSON-RPC error.
   */
  async start(caller: string, tool: string, work: (task: TaskWork) => Promise<string>): Promise<string> {
    const at = this.now();
    const task: TaskRecord = { id: randomUUID(), caller, tool, status: 'working', createdAt: at, lastUpdatedAt: at, ttlMs: this.options.ttlMs };
    await this.store.create(task);
    const controller = new AbortController();
    this.running.set(task.id, controller);
    void this.run(task, work, controller).finally(() => this.running.delete(task.id));
    return JSON.stringify({ resultType: 'task', ...this.view(task) });
  }

  private async run(task: TaskRecord, work: (task: TaskWork) => Promise<string>, controller: AbortController): Promise<void> {
    let asked = 0;
    // The questions outstanding, kept here and written whole: several may be asked at once.
    const outstanding: NonNullable<TaskRecord['inputRequests']> = {};
    const publish = () =>
      this.store.update(task.id, {
        status: Object.keys(outstanding).length ? 'input_required' : 'working',
        inputRequests: { ...outstanding },
        lastUpdatedAt: this.now(),
      });
    const ask = async (method: InputMethod, params: object, name?: string) => {
      if (!INPUT_METHODS[method]) throw new InputUnavailableError(`${method} cannot be asked`);
      const key = name ?? `input-${++asked}`;
      outstanding[key] = { method, params };
      await publish();
      const answer = await this.waitForAnswer(task.id, key, controller.signal);
      delete outstanding[key];
      await publish();
      return answer;
    };
    try {
      const json = await work({ ask, signal: controller.signal });
      await this.finish(task.id, { status: 'completed', result: JSON.parse(json) as object });
    } catch (err) {
      if (controller.signal.aborted) return;
      await this.finish(task.id, { status: 'failed', error: taskError(err, task, this.options.logger) });
    }
  }

  /** Writes a terminal state, unless the task was cancelled meanwhile (perhaps by another instance). */
  private async finish(id: string, patch: { status: TaskStatus; result?: object; error?: object }): Promise<void> {
    const current = await this.store.get(id);
    if (!current || TERMINAL.has(current.status)) return;
    await this.store.update(id, { ...patch, inputRequests: {}, lastUpdatedAt: this.now() });
  }

  /** Polls the store for the answer to `key` (tasks/update may land on any instance). */
  private async waitForAnswer(id: string, key: string, signal: AbortSignal): Promise<unknown> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.options.pollIntervalMs));
      if (signal.aborted) throw new InputUnavailableError('the task was cancelled');
      const task = await this.store.get(id);
      if (!task || TERMINAL.has(task.status)) throw new InputUnavailableError('the task ended while it waited for input');
      // Answers stay in the row: keys are never reused within a task, so none is taken twice.
      if (task.inputResponses && Object.hasOwn(task.inputResponses, key)) return task.inputResponses[key];
    }
  }

  /**
   * The task of this caller, unexpired (TaskNotFoundError otherwise), once `allow` accepted its
   * tool (what `allow` throws otherwise). Ownership comes first: another caller's task is not
   * found, whatever its token's scopes.
   */
  private async own(id: unknown, caller: string, allow: TaskAccess): Promise<TaskRecord> {
    const task = typeof id === 'string' ? await this.store.get(id) : undefined;
    const expired = task && Date.parse(task.createdAt) + task.ttlMs < (this.options.now ?? Date.now)();
    if (!task || task.caller !== caller || expired) throw new TaskNotFoundError(`Task not found: ${typeof id === 'string' ? id : JSON.stringify(id)}`);
    allow(task.tool);
    return task;
  }

  /** tasks/get: the task with its status's payload (result, error or questions). */
  async get(id: unknown, caller: string, allow: TaskAccess): Promise<string> {
    const task = await this.own(id, caller, allow);
    return JSON.stringify({
      ...this.view(task),
      ...(task.status === 'input_required' && { inputRequests: task.inputRequests ?? {} }),
      ...(task.status === 'completed' && { result: task.result }),
      ...(task.status === 'failed' && { error: task.error }),
    });
  }

  /** tasks/update: keeps the answers to questions that are outstanding; others are ignored. */
  async update(id: unknown, caller: string, allow: TaskAccess, responses: unknown): Promise<string> {
    const task = await this.own(id, caller, allow);
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw new TaskParamsError('inputResponses must be an object of answers by key');
    const outstanding = task.inputRequests ?? {};
    const taken = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(outstanding, key)));
    if (Object.keys(taken).length) {
      // Answered questions leave inputRequests at once, so the next tasks/get shows only what is still open.
      const open = Object.fromEntries(Object.entries(outstanding).filter(([key]) => !Object.hasOwn(taken, key)));
      await this.store.update(task.id, {
        inputResponses: { ...(task.inputResponses ?? {}), ...taken },
        inputRequests: open,
        status: Object.keys(open).length ? 'input_required' : 'working',
        lastUpdatedAt: this.now(),
      });
    }
    return '{}';
  }

  /** tasks/cancel: a task not yet ended is cancelled, and its work stopped if it runs here. */
  async cancel(id: unknown, caller: string, allow: TaskAccess): Promise<string> {
    const task = await this.own(id, caller, allow);
    if (!TERMINAL.has(task.status)) {
      await this.store.update(task.id, { status: 'cancelled', statusMessage: 'Cancelled by the client', inputRequests: {}, lastUpdatedAt: this.now() });
      this.running.get(task.id)?.abort();
    }
    return '{}';
  }

  private view(task: TaskRecord) {
    return {
      taskId: task.id,
      status: task.status,
      ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
    };
  }
}
