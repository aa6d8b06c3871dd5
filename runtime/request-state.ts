/** What the protocol knows of one request while it answers it, shared by the modules that answer its methods. */
import type { Era } from './era.ts';
import type { Principal } from './handler.ts';
import type { RequestId } from './jsonrpc.ts';
import type { MessageChannel } from './response-channel.ts';
import type { RequestTelemetry } from './telemetry.ts';

export interface RequestState {
  id: RequestId;
  era: Era;
  principal: Principal;
  channel: MessageChannel;
  /** Creates the request's abort signal; called only when a handler reads ctx.signal. */
  signal: () => AbortSignal;
  /** The result carries its own resultType (input_required, or a task handle), not "complete". */
  interim?: boolean;
  /** The request's span, when telemetry is on. */
  telemetry?: RequestTelemetry | undefined;
}
