import { isIP } from 'node:net';

/** Whether a host name or address is this machine only (127.0.0.0/8, ::1, localhost); brackets of an IPv6 URL host are allowed. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}
