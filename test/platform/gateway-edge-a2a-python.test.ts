// A2A through the external edge of the local platform with the official Python client, a2a-sdk
// 1.1 (issue #39): test/a2a-python/a2a_client.py, used as the SDK's README and samples use it,
// given the instance's base URL on the edge and its edge key (it subscribes too), against the edge of
// support/a2a-edge.ts (the mesh example on a slow model, so a run is still going when it is cancelled).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonVenvMissing } from '../support/python-venv.js';
import { expectEveryStepWorked, pythonA2aInterpreter, runPythonA2aClient } from '../a2a-python/python-a2a-client.js';
import { startA2aEdge, type A2aEdge } from './support/a2a-edge.js';
import { MCP_REF, PANEL_REF } from './support/example-pools.js';

/** The slow model answers `word1 … word8`, one word every 150 ms. */
const WORDS = 8;
const ANSWER = Array.from({ length: WORDS }, (_, index) => `word${index + 1}`).join(' ');
let edge: A2aEdge;
let python: string;

beforeAll(async () => {
  if (pythonVenvMissing) return;
  [edge, python] = await Promise.all([startA2aEdge(WORDS, 150), pythonA2aInterpreter()]);
}, 240_000);
afterAll(async () => {
  await edge?.close();
});

/** The instance's base URL on the edge: the Python client finds the card under it. */
const instanceUrl = (ref: string) => `${edge.url}/api/v1/k/${ref}`;

describe.skipIf(pythonVenvMissing)('A2A through the external edge with the Python client', () => {
  it('resolves the edge card, sends, streams, gets, subscribes to and cancels a task with the instance key', async () => {
    const report = await runPythonA2aClient(python, instanceUrl(MCP_REF), 'JSONRPC', edge.gateway.edgeKey(MCP_REF));
    expect(report.card).toMatchObject({ name: 'Mesh Actor', streaming: true, bindings: ['JSONRPC'] });
    expect(report.card.skills).toContain('chat');
    expectEveryStepWorked(report, (text) => expect(text.trim()).toBe(ANSWER));
  }, 90_000);

  it("refuses another instance's key and a wrong key, in the client's own error", async () => {
    for (const key of [edge.gateway.edgeKey(PANEL_REF), 'not-the-key'])
      await expect(runPythonA2aClient(python, instanceUrl(MCP_REF), 'JSONRPC', key)).rejects.toMatchObject({
        stderr: expect.stringMatching(/HTTP 401/),
      });
  }, 60_000);
});
