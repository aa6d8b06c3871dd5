/**
 * Fastify's `childLoggerFactory`: a request's logger (`req.log`, with its `reqId`) made on its
 * first use. Fastify makes one for every request, and pino's `child()` serializes its bindings at
 * once (about 2% of a `profiles` call's CPU, profiled on npm start), while a request that goes well
 * logs nothing. The lines a request does log are the same: the child is made then, as before.
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Level = (typeof LEVELS)[number];

class DeferredLogger implements FastifyBaseLogger {
  // The level methods are put on the prototype below: one object per request, no closures.
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  declare silent: FastifyBaseLogger['silent'];
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The request's own pino child, made now if it was not. */
  get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

for (const level of LEVELS) {
  DeferredLogger.prototype[level] = function (this: DeferredLogger, ...args: Parameters<FastifyBaseLogger[Level]>) {
    (this.logger[level] as (...a: typeof args) => void)(...args);
  } as FastifyBaseLogger[Level];
}

/** Gives each request a logger that becomes its pino child when it first logs. */
export const deferredChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new DeferredLogger(logger, bindings, options);
