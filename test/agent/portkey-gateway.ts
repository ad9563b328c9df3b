import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { deadPort } from '../surfaces/loopback.js';

/** Portkey's open-source AI gateway, run from its npm package as a child process. */
export interface PortkeyGateway {
  /** Its OpenAI-compatible `/v1` URL on loopback. */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** The gateway's own entry (`@portkey-ai/gateway`'s `bin`), resolved from its package. */
function gatewayEntry(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@portkey-ai/gateway/package.json');
  const { bin } = require(manifest) as { bin: string };
  return join(dirname(manifest), bin);
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `node <@portkey-ai/gateway bin> --port=<free> --headless` and resolves once it answers
 * on `127.0.0.1`; rejects with its output when it exits or is not up within `timeoutMs`.
 * @param timeoutMs the bound on the start (15 s when left out)
 */
export async function startPortkeyGateway(timeoutMs = 15_000): Promise<PortkeyGateway> {
  const port = await deadPort();
  const child: ChildProcess = spawn(process.execPath, [gatewayEntry(), `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'test' },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  const root = `http://127.0.0.1:${port}/`;
  while (!(await answers(root))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the Portkey gateway did not start on port ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl: `http://127.0.0.1:${port}/v1`, stop };
}

/** Starts one gateway for the calling test file, stopped after its tests. */
export async function portkeyGatewayForThisFile(): Promise<PortkeyGateway> {
  const gateway = await startPortkeyGateway();
  afterAll(() => gateway.stop());
  return gateway;
}
