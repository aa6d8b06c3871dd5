import { protocolError } from 'mcpyard';
import type { ProtocolErrorJobHandler } from '../generated/tools/protocol_error_job.gen.ts';

/** A task that fails with a JSON-RPC error (the task ends failed, with the error). */
export const handler: ProtocolErrorJobHandler = async () => {
  throw protocolError(-32602, 'protocol_error_job always fails with a JSON-RPC error');
};
