/**
 * The framework's protocol tests start tests/fixtures/protocol/server.ts, a server of its own
 * tools.yaml on the runtime, in a process of its own on a free port: no outreach app, no store.
 * The test holds the signing key: it makes an ES256 key pair, gives the server the public half
 * (PROTOCOL_FIXTURE_JWK), and mints the callers' tokens itself, with any subject and scopes.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { freePort } from '../../runtime/index.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

/** Every scope of the fixture's tools.yaml. */
export const FIXTURE_SCOPES = 'notes:read notes:write';

export interface ProtocolFixture {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** `${baseUrl}/mcp` */
  mcpUrl: string;
  port: number;
  process: ServerProcess;
  /** A token the server accepts, for `subject` (one caller, with notes of its own), with `scope` (default: all). */
  token(subject: string, options?: { scope?: string }): Promise<string>;
  /** A caller no other test uses, and its token. */
  newCaller(options?: { scope?: string }): Promise<{ subject: string; token: string }>;
  close(): Promise<void>;
}

let callers = 0;

/** Starts the protocol fixture server and waits until it listens. */
export async function startProtocolFixture(): Promise<ProtocolFixture> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const port = await freePort('127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  const mcpUrl = `${baseUrl}/mcp`;
  const proc = startServerProcess(
    { PORT: String(port), PROTOCOL_FIXTURE_JWK: JSON.stringify(await exportJWK(publicKey)), NODE_OPTIONS: '--import tsx' },
    'tests/fixtures/protocol/server.ts',
  );
  await proc.ready;
  const token = (subject: string, options: { scope?: string } = {}) =>
    new SignJWT({ scope: options.scope ?? FIXTURE_SCOPES })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
      .setIssuer(baseUrl)
      .setAudience(mcpUrl)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti(randomUUID())
      .sign(privateKey);
  return {
    baseUrl,
    mcpUrl,
    port,
    process: proc,
    token,
    async newCaller(options = {}) {
      const subject = `caller-${++callers}-${process.pid}`;
      return { subject, token: await token(subject, options) };
    },
    close: () => proc.stop(),
  };
}
