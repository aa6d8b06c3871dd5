/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) at 2026-07-28: a tool declared
 * `task: optional|required` answers a client that declares the extension with a task handle
 * (`resultType: "task"`) and runs on; the client polls `tasks/get`, answers the task's questions
 * with `tasks/update` and may `tasks/cancel`. Task state lives in a TaskStore (the app's is its
 * database), so any instance answers `tasks/get`, `tasks/update` and `tasks/cancel`; the work
 * runs on the instance that created the task, which reads answers and cancellation from the store.
 * That instance holds a lease on the task, renewed while the work runs: a task whose lease ended
 * (its instance died, or stalled past the lease) is failed by whichever instance reads it next, and,
 * where the store can list such tasks, by the next sweep of any instance, read or not.
 */
import { randomUUID } from 'node:crypto';
import { INTERNAL_RPC_ERROR, taskError } from './error-mapping.ts';
import type { InputMethod } from './input-requests.ts';
import { INPUT_METHODS, InputUnavailableError } from './input-requests.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
const INTERNAL_ERROR = INTERNAL_RPC_ERROR.code;

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
  /** Until when the instance running the task answers for it (renewed while the work runs); past it, the task is failed. */
  leaseExpiresAt?: string;
}

/**
 * Where tasks are kept. A task is written only while it is under way: `update` writes the fields it
 * is given only while the task is `working` or `input_required` (it may have ended meanwhile on
 * another instance: cancelled, or failed for its lease), and says whether it wrote.
 */
export interface TaskStore {
  create(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  update(id: string, patch: Partial<Omit<TaskRecord, 'id' | 'caller' | 'tool' | 'createdAt'>>): Promise<boolean>;
  /**
   * At most `limit` tasks under way whose lease ended before `leaseEndedBefore` (an ISO time).
   * Optional: with it, every instance sweeps them and fails them within a bounded time of
   * their last renewal, whether or not a client reads them; without it, such a task stays `working`
   * in the store until it is next read (and is failed then), or until it expires.
   */
  abandoned?(leaseEndedBefore: string, limit: number): Promise<TaskRecord[]>;
}

/** The statuses of a task under way: the only ones a write may find. */
export const UNDER_WAY: ReadonlySet<TaskStatus> = new Set(['working', 'input_required']);

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
      if (!task || !UNDER_WAY.has(task.status)) return false;
      Object.assign(task, structuredClone(patch));
      return true;
    },
    async abandoned(leaseEndedBefore, limit) {
      const ended = [...tasks.values()].filter((t) => UNDER_WAY.has(t.status) && t.leaseExpiresAt !== undefined && t.leaseExpiresAt < leaseEndedBefore);
      return ended.slice(0, limit).map((t) => structuredClone(t));
    },
  };
}

export interface TaskOptions {
  /** How long a task is kept after it was created (default: one hour). */
  ttlMs: number;
  /** The poll interval suggested to clients, and how often a task waiting for input looks for answers. */
  pollIntervalMs: number;
  /**
   * How long the instance running a task answers for it without renewing (default 10 s; renewed
   * every quarter of it): a task whose instance died is failed within this time of its last renewal.
   */
  leaseMs?: number;
  logger: { error(obj: object, msg: string): void };
  now?: () => number;
}

const DEFAULT_LEASE_MS = 10_000;
/** Tasks failed per sweep at most: a backlog (a cluster that lost an instance running many) takes a few sweeps. */
const SWEEP_LIMIT = 100;

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
  /** The work of tasks running in this process, to stop at once when cancelled here or when their lease is lost. */
  private readonly running = new Map<string, AbortController>();
  /** Renews the leases of the tasks running here, while there are any. */
  private renewal?: NodeJS.Timeout;
  /** Fails the tasks of instances that died (sweepAbandoned), while watchAbandoned runs. */
  private sweeps?: NodeJS.Timeout;

  constructor(
    private readonly store: TaskStore,
    private readonly options: TaskOptions,
  ) {}

  private now(): string {
    return new Date(this.clock()).toISOString();
  }

  private clock(): number {
    return (this.options.now ?? Date.now)();
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private leaseEnd(): string {
    return new Date(this.clock() + this.leaseMs).toISOString();
  }

  /**
   * Creates the task durably, starts `work` without waiting for it, and returns the serialized
   * CreateTaskResult. `work` resolves to the serialized final result (a CallToolResult) or rejects
   * with `{ code, message }` for a JSON-RPC error.
   */
  async start(caller: string, tool: string, work: (task: TaskWork) => Promise<string>): Promise<string> {
    const at = this.now();
    const task: TaskRecord = {
      id: randomUUID(),
      caller,
      tool,
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: this.options.ttlMs,
      leaseExpiresAt: this.leaseEnd(),
    };
    await this.store.create(task);
    const controller = new AbortController();
    this.running.set(task.id, controller);
    this.renewLeases();
    void this.run(task, work, controller).finally(() => this.running.delete(task.id));
    return JSON.stringify({ resultType: 'task', ...this.view(task) });
  }

  /**
   * While tasks run here, extends their leases every quarter of the lease. A task that can no
   * longer be written has ended elsewhere (cancelled, or failed because this process stalled past
   * its lease): its work stops.
   */
  private renewLeases(): void {
    if (this.renewal) return;
    this.renewal = setInterval(() => {
      if (!this.running.size) {
        clearInterval(this.renewal);
        this.renewal = undefined;
        return;
      }
      for (const [id, controller] of this.running)
        this.store.update(id, { leaseExpiresAt: this.leaseEnd() }).then(
          (held) => held || controller.abort(),
          (err: unknown) => this.options.logger.error({ err, task: id }, 'could not renew the lease of a task; trying again'),
        );
    }, this.leaseMs / 4);
    this.renewal.unref();
  }

  private async run(task: TaskRecord, work: (task: TaskWork) => Promise<string>, controller: AbortController): Promise<void> {
    let asked = 0;
    // The questions outstanding, kept here and written whole: several may be asked at once.
    const outstanding: NonNullable<TaskRecord['inputRequests']> = {};
    const publish = async () => {
      const written = await this.store.update(task.id, {
        status: Object.keys(outstanding).length ? 'input_required' : 'working',
        inputRequests: { ...outstanding },
        lastUpdatedAt: this.now(),
      });
      if (!written) throw new InputUnavailableError('the task ended while it asked for input');
    };
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

  /** Writes a terminal state, unless the task ended meanwhile (cancelled, perhaps by another instance, or failed for its lease). */
  private async finish(id: string, patch: { status: TaskStatus; result?: object; error?: object }): Promise<void> {
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
    const expired = task && Date.parse(task.createdAt) + task.ttlMs < this.clock();
    if (!task || task.caller !== caller || expired) throw new TaskNotFoundError(`Task not found: ${typeof id === 'string' ? id : JSON.stringify(id)}`);
    allow(task.tool);
    return this.abandoned(task) ? this.failAbandoned(task) : task;
  }

  /** Whether the task is under way on an instance that stopped renewing its lease (it died, or stalled past the lease). */
  private abandoned(task: TaskRecord): boolean {
    return UNDER_WAY.has(task.status) && task.leaseExpiresAt !== undefined && Date.parse(task.leaseExpiresAt) < this.clock();
  }

  /**
   * Fails every task under way whose lease ended (up to SWEEP_LIMIT a sweep), read or not, and
   * says how many it failed. Several instances may sweep at once: a task is failed once, by the
   * first write (a write finds only tasks under way).
   */
  async sweepAbandoned(): Promise<number> {
    if (!this.store.abandoned) return 0;
    let failed = 0;
    for (const task of await this.store.abandoned(this.now(), SWEEP_LIMIT)) if (await this.store.update(task.id, this.abandonment(task))) failed++;
    return failed;
  }

  /**
   * Sweeps every half lease while the server runs, when the store can list abandoned tasks: a task
   * whose instance died is then failed at most 1.5 leases after its last renewal (15 s by default),
   * whether or not a client reads it. Returns the stop.
   */
  watchAbandoned(): () => void {
    if (!this.store.abandoned || this.sweeps) return () => this.stopWatching();
    this.sweeps = setInterval(() => {
      this.sweepAbandoned().catch((err: unknown) => this.options.logger.error({ err }, 'could not fail the tasks of stopped instances; trying again'));
    }, this.leaseMs / 2);
    this.sweeps.unref();
    return () => this.stopWatching();
  }

  private stopWatching(): void {
    clearInterval(this.sweeps);
    this.sweeps = undefined;
  }

  /** Fails a task whose lease ended, and returns it as it is now (it may have ended otherwise meanwhile). */
  private async failAbandoned(task: TaskRecord): Promise<TaskRecord> {
    const failed = this.abandonment(task);
    if (await this.store.update(task.id, failed)) return { ...task, ...failed };
    return (await this.store.get(task.id)) ?? task;
  }

  /** What a task whose instance stopped is failed with. */
  private abandonment(task: TaskRecord) {
    return {
      status: 'failed' as const,
      statusMessage: 'The server instance running this task stopped before it finished',
      error: {
        code: INTERNAL_ERROR,
        message: `Task ${task.id} failed: the server instance running ${task.tool} stopped before it finished; call ${task.tool} again`,
      },
      inputRequests: {},
      lastUpdatedAt: this.now(),
    };
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
    if (
      !TERMINAL.has(task.status) &&
      (await this.store.update(task.id, { status: 'cancelled', statusMessage: 'Cancelled by the client', inputRequests: {}, lastUpdatedAt: this.now() }))
    )
      this.running.get(task.id)?.abort();
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
