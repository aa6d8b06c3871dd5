/**
 * Seals a value to one browser session: AES-256-GCM under a key derived from the session id,
 * which only the browser's cookie holds (the store keeps a hash of it, not the id). The MCP
 * dialog keeps the token it shows this way, so a copy of the sessions table holds no usable token.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const keyFor = (sessionId: string) => createHash('sha256').update(`mcp-dialog-token:${sessionId}`).digest();

export function seal(sessionId: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(sessionId), iv);
  const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The sealed value, or undefined when it was sealed to another session or altered. */
export function unseal(sessionId: string, sealed: string): string | undefined {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(sessionId), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
