/**
 * A mailbox server as the admin CLI takes it: `smtp[s]://user:pass@host:port` or
 * `imap[s]://user:pass@host:port`. The `s` scheme is TLS from the first byte (ports 465/993);
 * the plain scheme upgrades with STARTTLS, which is required, so a password never crosses the
 * network in clear. `?tls=none` (no TLS at all) is taken for a server on this machine only.
 */
import { isLoopback } from '../config.ts';

export type TlsMode = 'tls' | 'starttls' | 'none';

export interface MailServer {
  host: string;
  port: number;
  tls: TlsMode;
  user: string;
  password: string;
}

export type MailProtocol = 'smtp' | 'imap';

const DEFAULT_PORTS: Record<MailProtocol, Record<'tls' | 'starttls', number>> = {
  smtp: { tls: 465, starttls: 587 },
  imap: { tls: 993, starttls: 143 },
};

/** The port a server of this protocol listens on by default in this TLS mode (587/465, 143/993). */
export function defaultPort(protocol: MailProtocol, tls: TlsMode): number {
  return DEFAULT_PORTS[protocol][tls === 'tls' ? 'tls' : 'starttls'];
}

/** Whether a server may be used without TLS: only one on this machine, whose traffic never leaves it. */
export function clearTextAllowed(host: string): boolean {
  return isLoopback(host);
}

export class MailboxUrlError extends Error {
  override name = 'MailboxUrlError';
}

/** The server a --smtp or --imap URL names; a MailboxUrlError that says what to fix otherwise. */
export function parseMailboxUrl(protocol: MailProtocol, text: string): MailServer {
  const flag = `--${protocol}`;
  const shape = `${protocol}://USER:PASSWORD@HOST:PORT (STARTTLS) or ${protocol}s://USER:PASSWORD@HOST:PORT (TLS)`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MailboxUrlError(`${flag} is not a URL; give ${shape}`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== protocol && scheme !== `${protocol}s`)
    throw new MailboxUrlError(`${flag} must start with ${protocol}:// or ${protocol}s://, got ${scheme}://; give ${shape}`);
  if (!url.hostname) throw new MailboxUrlError(`${flag} has no host; give ${shape}`);
  if (!url.username || !url.password)
    throw new MailboxUrlError(`${flag} needs the user and the password (${protocol}://USER:PASSWORD@${url.hostname}); percent-encode an @ in the user as %40`);
  if (url.pathname && url.pathname !== '/') throw new MailboxUrlError(`${flag} takes no path (${url.pathname}); give ${shape}`);
  const tlsOption = url.searchParams.get('tls');
  if ([...url.searchParams.keys()].some((k) => k !== 'tls') || (tlsOption !== null && tlsOption !== 'none'))
    throw new MailboxUrlError(`${flag} knows one option, ?tls=none (no TLS, for a server on this machine); got ${url.search}`);
  let tls: TlsMode = scheme === protocol ? 'starttls' : 'tls';
  if (tlsOption === 'none') {
    if (tls === 'tls') throw new MailboxUrlError(`${flag}: ${scheme}:// is TLS; ?tls=none goes with ${protocol}://`);
    if (!clearTextAllowed(url.hostname))
      throw new MailboxUrlError(`${flag}: ?tls=none would send the password in clear to ${url.hostname}; it is taken for a server on this machine only`);
    tls = 'none';
  }
  const port = url.port ? Number(url.port) : defaultPort(protocol, tls);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    tls,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}
