// The gateway as an HTTP proxy, served on a loopback port over the examples hosted in-process:
// a client's `Expect: 100-continue` is answered by the gateway and never sent on.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformGateway, type PlatformGateway } from '../../platform/gateway/index.js';
import { PANEL_REF, startExamplePools, type ExamplePools } from './support/example-pools.js';
import { serveOnLoopbackPort } from './support/serve-gateway.js';

let hosted: ExamplePools;
let gateway: PlatformGateway;
let served: { url: string; close(): Promise<void> };

beforeAll(async () => {
  hosted = await startExamplePools({ panel: 'memory://', mcp: 'memory://' }, 1);
  gateway = createPlatformGateway({ pools: hosted.pools, reconcileIntervalMs: 0 });
  served = await serveOnLoopbackPort((request) => gateway.fetch(request));
});
afterAll(async () => {
  await served?.close();
  await gateway?.close();
  await hosted?.close();
});

/** Sends a chat through the edge as curl does for a large body: headers first, the body only after `100 Continue`. */
function chatWaitingForContinue(body: string): Promise<{ continued: boolean; status: number; text: string }> {
  const url = new URL(`${served.url}/api/v1/k/${PANEL_REF}/chat`);
  return new Promise((resolve, reject) => {
    let continued = false;
    const client = httpRequest(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'X-API-Key': gateway.edgeKey(PANEL_REF) as string,
        Expect: '100-continue',
      },
    });
    client.on('continue', () => {
      continued = true;
      client.end(body);
    });
    client.on('response', (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
      answer.on('end', () => resolve({ continued, status: answer.statusCode ?? 0, text }));
    });
    client.on('error', reject);
    client.flushHeaders();
  });
}

describe('the gateway as a proxy', () => {
  it('answers a client that sends Expect: 100-continue with 100, then the chat’s 200', async () => {
    const answer = await chatWaitingForContinue(
      JSON.stringify({ user_identifier: 'u1', session_id: 's-expect', message: 'hello' }),
    );
    expect(answer).toMatchObject({ continued: true, status: 200 });
    expect(JSON.parse(answer.text)).toMatchObject({ message: { content: expect.any(String) } });
  });
});
