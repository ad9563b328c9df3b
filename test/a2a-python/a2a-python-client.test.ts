import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { pythonVenvMissing } from '../support/python-venv.js';
import { ActorTool } from '../../src/agent/actor-tool.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { testActorsForThisFile } from '../surfaces/loopback.js';
import { answerOf, slowChatHandler } from '../surfaces/slow-chat-handler.js';
import {
  pythonA2aInterpreter,
  runPythonA2aClient,
  type PythonA2aBinding,
  expectEveryStepWorked,
} from './python-a2a-client.js';

const API_KEY = 'a2a-python-key';

const serveA2aActor = testActorsForThisFile({
  definition: { ...testActorDefinition, features: { ...defaultActorFeatures, exposeA2a: true } } as ActorDefinition,
  tools: [
    new ActorTool({
      name: 'test_lookup',
      description: 'Looks a topic up',
      readOnly: true,
      argsSchema: v.object({ topic: v.string() }),
      run: ({ topic }) => ({ topic }),
    }),
  ],
  env: { API_KEY_ENABLED: 'true', API_KEY },
});

let python: string;
beforeAll(async () => {
  if (pythonVenvMissing) return;
  python = await pythonA2aInterpreter();
}, 240_000);

const pythonClient = (url: string, binding: PythonA2aBinding, key?: string) =>
  runPythonA2aClient(python, url, binding, key);

const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

describe.skipIf(pythonVenvMissing)('A2A through the official Python client, a2a-sdk 1.1 (issue #39)', () => {
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`resolves the card, sends, streams, gets, subscribes and cancels over ${binding}, with the API key`, async () => {
      const url = await serveA2aActor({ chatHandler: slowChatHandler(words, 120) });
      const report = await pythonClient(url, binding, API_KEY);
      expect(report.card).toEqual({
        name: testActorDefinition.metadata.name,
        skills: ['chat', 'test_lookup'],
        streaming: true,
        bindings: ['JSONRPC', 'HTTP+JSON'],
      });
      expectEveryStepWorked(report, (text) => expect(text).toBe(answerOf(words)));
    }, 90_000);
  }

  it("is refused without the key, in the client's own error", async () => {
    const url = await serveA2aActor();
    await expect(pythonClient(url, 'JSONRPC', 'not-the-key')).rejects.toMatchObject({
      stderr: expect.stringMatching(/401/),
    });
  }, 60_000);
});
