/**
 * What a client of the cluster sees for a request in flight on an instance killed with kill -9:
 * HAProxy answers 502 Bad Gateway, or, when the request was not the first on a kept-alive client
 * connection, closes that connection with no answer (as a server closes an idle one). Both mean
 * "not answered; repeat it if it is safe to" (scripts/cluster/haproxy-config.ts, docs/operating.md).
 */

export const BAD_GATEWAY = '502';
export const CLOSED_WITHOUT_ANSWER = 'connection closed without an answer';

/** The two retryable failures a killed instance causes. */
export const RETRYABLE: ReadonlySet<string> = new Set([BAD_GATEWAY, CLOSED_WITHOUT_ANSWER]);

/** A fetch failure as a label: CLOSED_WITHOUT_ANSWER, or what else went wrong (which no client of a cluster should see). */
export function failureLabel(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET' || /other side closed|socket hang up/.test(cause?.message ?? ''))
    return CLOSED_WITHOUT_ANSWER;
  return `failed: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
}
