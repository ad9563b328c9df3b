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
  type PythonA2aSeen,
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
      expect(report.sent.text).toBe(answerOf(words));
      expect(report.sent.states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(report.streamed.kinds[0]).toBe('task');
      expect(report.streamed.kinds).toContain('artifact_update');
      expect(report.streamed.text).toBe(answerOf(words));
      expect(report.streamed.states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(report.got).toMatchObject({ id: report.streamed.task_id, state: 'TASK_STATE_COMPLETED' });
      // SubscribeToTask: the task as it is (working, its text so far), then the rest, each word once.
      expect(report.subscribed).not.toHaveProperty('refused');
      const subscribed = report.subscribed as PythonA2aSeen;
      expect(subscribed.kinds[0]).toBe('task');
      expect(subscribed.kinds.filter((kind) => kind === 'task')).toHaveLength(1);
      expect(subscribed.states[0]).toBe('TASK_STATE_WORKING');
      expect(subscribed.states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(subscribed.text).toBe(answerOf(words));
      expect(report.cancelled).toEqual({ before: ['TASK_STATE_WORKING'], after: 'TASK_STATE_CANCELED' });
      expect(report.missing).toMatch(/NotFound/);
    }, 90_000);
  }

  it("is refused without the key, in the client's own error", async () => {
    const url = await serveA2aActor();
    await expect(pythonClient(url, 'JSONRPC', 'not-the-key')).rejects.toMatchObject({
      stderr: expect.stringMatching(/401/),
    });
  }, 60_000);
});
