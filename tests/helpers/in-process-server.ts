/**
 * The one exception to "black-box tests start what users start": a server built from the sources
 * in the test's own process, for a test that must move the server's clock (a week of sequencing
 * in milliseconds). No setting of `npm start` moves its clock, and none should: that would be a
 * test knob in production. What such a test proves about the sequencer's rules holds for the
 * bundle too, and tests/e2e/sequencer-mcp.test.ts also runs a campaign on the bundle in real time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../app/config.ts';
import { buildServer, type BuildOptions, type Service } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { ALL_SCOPES, TEST_PASSWORD } from './server.ts';
import './test-passwords.ts';

export interface InProcessServer {
  mcpUrl: string;
  service: Service;
  /** The settings it runs with (its store among them): what a CLI command on the same store is started with. */
  env: Record<string, string>;
  /** An account with one profile; `approval` as `account create --approval` sets it (default on). */
  createAccount(options?: { approval?: 'on' | 'off' }): Promise<{ accountId: string; userId: string; profileIds: string[]; email: string }>;
  token(user: { userId: string; accountId: string }): Promise<string>;
  close(): Promise<void>;
}

let accounts = 0;

/** buildServer() on a fresh store, listening on a free port, its sequencer ticking only when the test says. */
export async function startInProcessServer(env: Record<string, string>, options: BuildOptions): Promise<InProcessServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-inproc-'));
  const port = await freePort('127.0.0.1');
  const settings = { HOST: '127.0.0.1', ...env, PORT: String(port), DATA_DIR: dataDir };
  const config = loadConfig(settings);
  const service = await buildServer(config, { logger: false, autoTick: false, ...options });
  await service.app.listen({ port, host: '127.0.0.1' });
  return {
    mcpUrl: `${config.publicUrl}/mcp`,
    env: settings,
    service,
    async createAccount(options = {}) {
      const email = `inproc${++accounts}.${process.pid}@example.com`;
      const created = await service.accounts.createAccount({
        name: `Account ${accounts}`,
        email,
        password: TEST_PASSWORD,
        profiles: [{ name: 'Profile 1', channel: 'linkedin', timezone: 'UTC', daily_limit: 50 }],
        requireApproval: options.approval !== 'off',
      });
      return { ...created, email };
    },
    async token(user) {
      return (await service.issueToken({ userId: user.userId, accountId: user.accountId, scope: ALL_SCOPES })).token;
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
