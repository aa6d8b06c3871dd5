/**
 * OpenTelemetry's SDK, started only when the standard variables ask for it: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces or metrics one) is set and `OTEL_SDK_DISABLED`
 * is not `true`. Otherwise nothing of it is loaded: the SDK comes in by dynamic import, and the
 * framework's spans stay off (mcpHttp's `telemetry`), so a request does no tracing work at all.
 *
 * The SDK (`@opentelemetry/sdk-node`) reads every other OTEL_* variable itself: the exporters'
 * protocol (`http/protobuf` by default, `http/json`, `grpc`), headers and timeouts, the sampler,
 * the batch and metric intervals, the propagators, the resource. Besides the framework's MCP spans
 * it instruments PostgreSQL's driver (`pg`, which the bundle keeps external so that the
 * instrumentation sees it loaded: app/store/db/database.ts) and Node's fetch (the delivery webhook).
 */
import type { NodeSDK } from '@opentelemetry/sdk-node';

/** Whether the environment asks for telemetry (see the file's comment). */
export function telemetryRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
}

export interface Telemetry {
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts the SDK when the environment asks for it, before the store's driver is loaded (an
 * instrumentation patches a module as it is required). `serviceName` stands in for an unset
 * OTEL_SERVICE_NAME.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv, serviceName: string): Promise<Telemetry | undefined> {
  if (!telemetryRequested(env)) return undefined;
  const [{ NodeSDK: Sdk }, { PgInstrumentation }, { UndiciInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  const sdk: NodeSDK = new Sdk({
    ...(!env.OTEL_SERVICE_NAME && { serviceName }),
    instrumentations: [
      // A span per query, with its parametrized text (never the values: enhancedDatabaseReporting
      // stays off), and only inside a traced operation: not for the outbox's idle polls.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true, enhancedDatabaseReporting: false }),
      new UndiciInstrumentation(),
    ],
    // This server logs with pino to stdout; no OpenTelemetry log records are made, so none are exported.
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
