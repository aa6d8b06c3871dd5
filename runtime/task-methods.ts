/**
 * The tasks extension (2026-07-28) in the protocol: a tool call that becomes a task, and
 * tasks/get, tasks/update, tasks/cancel (tasks.ts keeps the tasks).
 */
import { callerOf } from './caller.ts';
import { declaredCapabilities } from './era.ts';
import { clientCapabilityRequired, type ErrorFactory } from './errors.ts';
import type { RequestState } from './request-state.ts';
import type { ScopeGate } from './scope-gate.ts';
import { TASKS_EXTENSION, TaskNotFoundError, TaskParamsError, type Tasks } from './tasks.ts';
import type { ToolRunner } from './tool-runner.ts';

export class TaskMethods {
  constructor(
    private readonly tasks: Tasks,
    private readonly runner: ToolRunner,
    private readonly scopes: ScopeGate,
    private readonly errors: ErrorFactory,
  ) {}

  /** Runs the tool as a task: the CreateTaskResult now, the work on in the background. */
  start(name: string, args: unknown, state: RequestState): Promise<string> {
    state.interim = true; // the result carries its own resultType ("task")
    const quiet = () => undefined; // progress and log notifications are not sent for tasks
    return this.tasks.start(callerOf(state.principal), name, (task) =>
      // A JSON-RPC error of the call fails the task with that error (error-mapping.ts, taskError); a tool error completes it.
      this.runner.call(name, args, { principal: state.principal, signal: () => task.signal, log: quiet, progress: quiet, ask: task.ask }),
    );
  }

  /**
   * tasks/get, tasks/update, tasks/cancel: only the task's own caller sees or changes it, and only
   * with the scopes of the task's tool (the 403 of tools/call otherwise).
   */
  async answer(method: 'tasks/get' | 'tasks/update' | 'tasks/cancel', params: Record<string, unknown>, state: RequestState): Promise<string> {
    const tasks = this.tasks;
    if (!declaresTasks(params)) throw tasksCapabilityRequired(this.errors, method);
    const caller = callerOf(state.principal);
    const allow = (name: string) => {
      const tool = this.runner.get(name);
      // A task of a tool this server no longer has: nothing to check its scopes against.
      if (!tool) throw new TaskNotFoundError(`task of unknown tool ${name}`);
      this.scopes.requireTool(tool, state.principal);
    };
    try {
      if (method === 'tasks/get') return await tasks.get(params.taskId, caller, allow);
      if (method === 'tasks/cancel') return await tasks.cancel(params.taskId, caller, allow);
      return await tasks.update(params.taskId, caller, allow, params.inputResponses);
    } catch (err) {
      if (err instanceof TaskNotFoundError) throw this.errors.create('TASK_NOT_FOUND', { task: shownId(params.taskId) });
      // Only the store's own verdict on the params' shape; any other error (a bug) is an internal error.
      if (err instanceof TaskParamsError) throw this.errors.create('INVALID_PARAMS', { detail: err.message });
      throw err;
    }
  }
}

/** -32021 (400) naming the tasks extension, for a client that did not declare it. */
export function tasksCapabilityRequired(errors: ErrorFactory, what: string) {
  return clientCapabilityRequired(errors, what, `extensions["${TASKS_EXTENSION}"]`, { extensions: { [TASKS_EXTENSION]: {} } });
}

/** Whether the request declares the tasks extension. */
export function declaresTasks(params: Record<string, unknown>): boolean {
  return Boolean((declaredCapabilities(params).extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION]);
}

function shownId(id: unknown): string {
  return typeof id === 'string' ? id : (JSON.stringify(id) ?? String(id));
}
