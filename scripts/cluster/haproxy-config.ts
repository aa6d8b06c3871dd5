/**
 * The HAProxy configuration of a cluster: round robin over the instances, no stickiness, each
 * instance health-checked on /readyz. The same layout serves real hosts (docs/operating.md shows
 * it); `npm run cluster` writes it with loopback addresses. Why each setting is what it is:
 *
 * - `balance roundrobin`, no cookie, no `prefer-last-server`: every request, even on a kept-alive
 *   client connection, goes to the next instance; nothing ties a client to one.
 * - `option httpchk` GET /readyz every 500 ms (250 ms while a state changes), `fall 2 rise 2`: an
 *   instance whose process or database stops answering is out within about a second, and back
 *   about a second after it answers again (a killed process refuses the check's connection: out
 *   after two checks, 250 to 750 ms).
 * - `retries 2` + `option redispatch 1`: a request whose connection could not be opened (refused:
 *   the process is gone) is sent to another instance, so a new request never sees a dead one.
 *   Only connection failures are retried (HAProxy's default `retry-on conn-failure`): a request an
 *   instance received and died answering may have been applied, so it is never sent twice. Its
 *   client gets 502 Bad Gateway, or, when the request was not the first on a kept-alive client
 *   connection, that connection closed with no answer (as a server closes an idle one); either is
 *   retryable for a call that is safe to repeat (docs/operating.md).
 * - `timeout server` / `client` 11 minutes: a handshake-era call that asks the client a question
 *   (elicitation) keeps its event stream open, silent, while the client answers, up to the 10
 *   minutes the server waits; a shorter timeout would cut it.
 * - `timeout http-keep-alive 60s`: the balancer lets idle client connections go before the
 *   instances' IDLE_TIMEOUT_MS (72 s) would.
 * - `option forwardfor`: the instances (TRUST_PROXY set to the balancer's address) count sign-in
 *   failures and rate limits per client address, not per balancer.
 */

export interface Backend {
  /** The name HAProxy shows for it (`show stat`'s svname). */
  name: string;
  host: string;
  port: number;
}

export interface HaproxyConfigOptions {
  /** Where the balancer listens. */
  bind: { host: string; port: number };
  servers: readonly Backend[];
  /** A Unix socket for `show stat` (instance states), when wanted. */
  statsSocket?: string;
  /** Most connections at once (default 4096). */
  maxConnections?: number;
}

/** The name of the backend section, for `show stat`. */
export const BACKEND_NAME = 'instances';

export function haproxyConfig(options: HaproxyConfigOptions): string {
  const bind = options.bind.host.includes(':') ? `[${options.bind.host}]:${options.bind.port}` : `${options.bind.host}:${options.bind.port}`;
  return [
    'global',
    `  maxconn ${options.maxConnections ?? 4096}`,
    ...(options.statsSocket ? [`  stats socket ${options.statsSocket} mode 600 level admin`] : []),
    '',
    'defaults',
    '  mode http',
    '  option http-keep-alive',
    '  option forwardfor',
    '  timeout connect 1s',
    '  timeout http-request 30s',
    '  timeout http-keep-alive 60s',
    '  timeout queue 5s',
    '  timeout client 11m',
    '  timeout server 11m',
    '  retries 2',
    '  option redispatch 1',
    '',
    'frontend mcp',
    `  bind ${bind}`,
    `  default_backend ${BACKEND_NAME}`,
    '',
    `backend ${BACKEND_NAME}`,
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz',
    '  http-check expect status 200',
    '  default-server check inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2',
    ...options.servers.map((s) => `  server ${s.name} ${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`),
    '',
  ].join('\n');
}
