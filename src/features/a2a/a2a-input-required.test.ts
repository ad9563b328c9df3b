import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { completion, fakeOpenAIForThisFile } from '../../../test/agent/fake-openai-server.js';
import { mailCall, sendEmail, sent } from '../../../test/agent/fixtures/mail-send-tool.js';
import { serveOnLoopback } from '../../../test/surfaces/loopback.js';
import type { ServeHandle } from '../../adapter/serve-options.js';
import { defaultActorFeatures } from '../../core/actor-definition.js';
import { createTestActor, testActorDefinition } from '../../testing/create-test-actor.js';
import { MemoryStore } from '../../store/memory-store.js';

const model = await fakeOpenAIForThisFile();
const env = {
  LLM_BASE_URL: model.baseUrl,
  LLM_MODEL: 'fake-model',
  LLM_API_KEY: 'sk-test',
  LLM_MAX_RETRIES: '0',
  LLM_TIMEOUT_MS: '2000',
};

let served: ServeHandle | undefined;
let stop: (() => Promise<void>) | undefined;
const alsoServed: ServeHandle[] = [];
afterEach(async () => {
  await served?.close();
  await stop?.();
  for (const handle of alsoServed.splice(0)) await handle.close();
});

const message = (parts: Message['parts'], more: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: 'ctx-mail',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...more,
});

const send = (m: Message) => ({ tenant: '', message: m, configuration: undefined, metadata: undefined });

describe('A2A input-required: a run that waits for a tool approval (issue #38)', () => {
  it('is a task input-required; a message to it with a data part {approved} answers it', async () => {
    sent.length = 0;
    const app = await createTestActor({
      definition: { ...testActorDefinition, features: { ...defaultActorFeatures, exposeA2a: true } },
      env,
      tools: [sendEmail],
    });
    stop = () => app.actor.shutdown({ graceMs: 2_000 });
    served = await serveOnLoopback(app);
    model.reply(
      { kind: 'json', body: completion(null, { toolCalls: [mailCall('call_a', 'ada@x')] }) },
      { kind: 'json', body: completion('Sent to Ada.') },
    );
    const client = await new ClientFactory().createFromUrl(served.url);
    const paused = (await client.sendMessage(
      send(
        message([{ content: { $case: 'text', value: 'Mail Ada' }, metadata: undefined, filename: '', mediaType: '' }]),
      ),
    )) as Task;
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = paused.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
    expect(asked?.$case === 'data' && asked.value).toMatchObject({
      approvals: [{ tool: 'mail_send', arguments: { to: 'ada@x' } }],
    });
    expect(sent).toEqual([]);
    // Subscribing to it shows it as it is, waiting, and the stream closes (an interrupted state):
    // nothing comes until a message answers it.
    const followed: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: paused.id })) followed.push(event);
    expect(followed.map((event) => event.payload)).toEqual([
      {
        $case: 'task',
        value: expect.objectContaining({
          id: paused.id,
          status: expect.objectContaining({
            state: TaskState.TASK_STATE_INPUT_REQUIRED,
            message: expect.objectContaining({ parts: paused.status?.message?.parts }),
          }),
        }),
      },
    ]);

    const answered = (await client.sendMessage(
      send(
        message(
          [{ content: { $case: 'data', value: { approved: true } }, metadata: undefined, filename: '', mediaType: '' }],
          {
            taskId: paused.id,
          },
        ),
      ),
    )) as Task;
    expect(answered.id).toBe(paused.id);
    let task = answered;
    for (
      const until = Date.now() + 5_000;
      task.status?.state !== TaskState.TASK_STATE_COMPLETED && Date.now() < until;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = await client.getTask({ tenant: '', id: paused.id });
    }
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent).toEqual(['ada@x']);
  });

  it('a subscription through another replica ends with the task input-required when the run starts waiting', async () => {
    sent.length = 0;
    // Two replicas of one actor on one store: the run goes on the first, the subscription comes
    // to the second, which follows the run from the store.
    const store = new MemoryStore();
    const definition = { ...testActorDefinition, features: { ...defaultActorFeatures, exposeA2a: true } };
    const [first, second] = await Promise.all(
      [0, 1].map(() => createTestActor({ definition, env, tools: [sendEmail], store })),
    );
    stop = async () => {
      await first!.actor.shutdown({ graceMs: 2_000 });
      await second!.actor.shutdown({ graceMs: 2_000 });
    };
    served = await serveOnLoopback(first!);
    alsoServed.push(await serveOnLoopback(second!));
    // The model thinks for a second before it asks for the tool, so the run is running when the
    // subscription starts.
    model.reply(
      { kind: 'json', delayMs: 1_000, body: completion(null, { toolCalls: [mailCall('call_b', 'bo@x')] }) },
      { kind: 'json', body: completion('Sent to Bo.') },
    );
    const onFirst = await new ClientFactory().createFromUrl(served.url);
    const onSecond = await new ClientFactory().createFromUrl(alsoServed[0]!.url);
    const text = {
      content: { $case: 'text' as const, value: 'Mail Bo' },
      metadata: undefined,
      filename: '',
      mediaType: '',
    };
    const started = (await onFirst.sendMessage({
      ...send(message([text])),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        historyLength: undefined,
        returnImmediately: true,
      },
    })) as Task;
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const followed: StreamResponse[] = [];
    for await (const event of onSecond.resubscribeTask({ tenant: '', id: started.id })) followed.push(event);
    expect(followed[0]?.payload).toMatchObject({ $case: 'task', value: { id: started.id } });
    const last = followed.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(sent).toEqual([]);
  });
});
