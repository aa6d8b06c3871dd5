/**
 * runtime's serve(), as `mcpyard start` runs a project: the conformance fixture (auth: none) in a
 * process of its own, its settings from the environment. Loopback by default; bound elsewhere it
 * serves but warns; a PORT that is not a port, or one in use, stops the start with a sentence.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../runtime/index.ts';
import { REPO_ROOT } from '../helpers/server-process.ts';

const ENTRY = ['--import', 'tsx', path.join(REPO_ROOT, 'examples/conformance/server.ts'), '--serve'];

interface Started {
  output: () => string;
  url: Promise<string>;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

function start(env: Record<string, string | undefined>): Started {
  const child = spawn(process.execPath, ENTRY, {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: undefined, PORT: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /MCP at (\S+)/.exec(output);
      if (found) resolve(found[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((code) => reject(new Error(`exited ${code} before serving:\n${output}`)));
  });
  url.catch(() => {});
  return {
    output: () => output,
    url,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const call = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } }),
  }).then((r) => r.json() as Promise<{ result?: { content: Array<{ text: string }> } }>);

test('by default it binds to loopback, on PORT, and answers with no warning', async () => {
  const port = await freePort('127.0.0.1');
  const server = start({ PORT: String(port) });
  try {
    assert.equal(await server.url, `http://127.0.0.1:${port}/mcp`);
    assert.ok((await call(await server.url)).result?.content[0]?.text);
    assert.doesNotMatch(server.output(), /auth: none serves every tool/);
  } finally {
    await server.stop();
  }
});

test('auth: none bound beyond loopback serves, and warns', async () => {
  const server = start({ HOST: '0.0.0.0', PORT: '0' });
  try {
    const url = await server.url;
    assert.match(url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    await new Promise((r) => setTimeout(r, 200));
    assert.match(server.output(), /auth: none serves every tool to anyone who can reach 0\.0\.0\.0:\d+; keep HOST on 127\.0\.0\.1/);
  } finally {
    await server.stop();
  }
});

test('a PORT that is not a port, or one in use, stops the start with what to do', async () => {
  const bad = start({ PORT: 'eighty' });
  assert.notEqual(await bad.exited, 0);
  assert.match(bad.output(), /PORT=eighty is not a port number: give 0 to 65535 \(0 picks a free one\)/);

  const port = await freePort('127.0.0.1');
  const first = start({ PORT: String(port) });
  try {
    await first.url;
    const second = start({ PORT: String(port) });
    assert.notEqual(await second.exited, 0);
    assert.match(second.output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: stop the program using it, or set PORT to another port`));
  } finally {
    await first.stop();
  }
});
