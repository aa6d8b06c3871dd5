/** The protocol revisions served on the one endpoint, and how a request declares its revision. */

/** Revisions with the initialize handshake, newest first. */
export const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** The stateless revision: no handshake, the version travels with every request. */
export const STATELESS_VERSION = '2026-07-28';
export const SUPPORTED_VERSIONS: readonly string[] = [STATELESS_VERSION, ...HANDSHAKE_VERSIONS];
/** Assumed when a handshake-era request carries no MCP-Protocol-Version header (2025-06-18 spec). */
export const DEFAULT_HEADER_VERSION = '2025-03-26';

export function isSupported(version: string): boolean {
  return SUPPORTED_VERSIONS.includes(version);
}

/** The version an initialize answers with: the client's if supported, else our newest handshake one. */
export function negotiate(requested: unknown): string {
  return typeof requested === 'string' && (HANDSHAKE_VERSIONS as readonly string[]).includes(requested) ? requested : HANDSHAKE_VERSIONS[0];
}
