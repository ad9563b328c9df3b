import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ModelRequest, ModelStreamPart } from '../chat-model.js';
import { createOfflineModel } from './offline.js';

const greet = { name: 'hello_greet', description: 'Greets', parameters: { type: 'object' } };
const ask = (messages: ChatMessage[], overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages,
  tools: [greet],
  signal: new AbortController().signal,
  ...overrides,
});
const model = createOfflineModel();

describe('the offline model', () => {
  it('says it is the offline model, echoes the message and names the tools', async () => {
    const response = await model.generate(ask([{ role: 'user', content: 'hello there' }]));
    expect(response.text).toMatch(/^\[offline model\] No language model is configured/);
    expect(response.text).toContain('You said: hello there');
    expect(response.text).toContain('use tool <name> with {JSON arguments}. Tools: hello_greet.');
    expect(response).toMatchObject({ toolCalls: [], finishReason: 'stop', model: 'offline' });
    expect(response.usage.outputTokens).toBe(response.text.split(/\s+/).filter(Boolean).length);
  });

  it('counts input tokens as the words `split(/\\s+/)` finds, for every kind of space JavaScript knows', async () => {
    const spaces = [
      ' ',
      '\t',
      '\n',
      '\v',
      '\f',
      '\r',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u200a',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
      '\u200b',
      '\u0085',
    ];
    const text = fc
      .array(
        fc.oneof(fc.constantFrom(...spaces), fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 3 })),
        { maxLength: 30 },
      )
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        // Twice: the second count of a text is the remembered one.
        for (const _ of [1, 2]) {
          const response = await model.generate({
            messages: [{ role: 'assistant', content }],
            tools: [],
            signal: new AbortController().signal,
          });
          expect(response.usage.inputTokens).toBe(content.split(/\s+/).filter(Boolean).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('counts a history of texts larger than it remembers as it counts a small one', async () => {
    const texts = Array.from({ length: 40 }, (_, index) => `${'word '.repeat(10_000 + index)}end`);
    const messages: ChatMessage[] = texts.map((content) => ({ role: 'user', content }));
    const expected = texts.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
    for (const _ of [1, 2, 3]) expect((await model.generate(ask(messages))).usage.inputTokens).toBe(expected);
  });

  it('is deterministic', async () => {
    const request = ask([{ role: 'user', content: 'same words' }]);
    expect(await model.generate(request)).toEqual(await model.generate(request));
  });

  it('calls the tool a message names, with the JSON after "with"', async () => {
    const response = await model.generate(
      ask([{ role: 'user', content: 'Please USE TOOL hello_greet with {"name": "Ada"}' }]),
    );
    expect(response).toMatchObject({
      text: '',
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_offline_1', name: 'hello_greet', arguments: '{"name": "Ada"}' }],
    });
  });

  it('calls a tool without arguments as {} and passes malformed arguments on untouched', async () => {
    expect(
      (await model.generate(ask([{ role: 'user', content: 'use tool hello_greet' }]))).toolCalls[0]!.arguments,
    ).toBe('{}');
    expect(
      (await model.generate(ask([{ role: 'user', content: 'use tool hello_greet with {oops' }]))).toolCalls[0]!
        .arguments,
    ).toBe('{oops');
  });

  it('answers in text about a tool it does not have, or when told to answer in text', async () => {
    expect((await model.generate(ask([{ role: 'user', content: 'use tool nope_tool' }]))).text).toBe(
      '[offline model] There is no tool named nope_tool. Tools I can use: hello_greet.',
    );
    const none = await model.generate(ask([{ role: 'user', content: 'use tool hello_greet' }], { toolChoice: 'none' }));
    expect(none.toolCalls).toEqual([]);
  });

  it('reports what the tools answered once results are in', async () => {
    const response = await model.generate(
      ask([
        { role: 'user', content: 'use tool hello_greet with {"name":"Ada"}' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'hello_greet', arguments: '{"name":"Ada"}' }] },
        { role: 'tool', toolCallId: 'c', name: 'hello_greet', content: 'Hello, Ada!' },
      ]),
    );
    expect(response.text).toBe('[offline model] I used a tool. hello_greet answered: Hello, Ada!');
  });

  it('counts the earlier messages of the conversation it sees', async () => {
    const response = await model.generate(
      ask(
        [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
        { tools: [] },
      ),
    );
    expect(response.text).toContain('(I can see 2 earlier messages of this conversation.)');
  });

  it('streams the same text in pieces, then one finish', async () => {
    const request = ask([{ role: 'user', content: 'hello   there\nfriend' }]);
    const parts: ModelStreamPart[] = [];
    for await (const part of model.stream(request)) parts.push(part);
    const finish = parts.at(-1);
    expect(finish?.type).toBe('finish');
    const deltas = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(finish?.type === 'finish' ? finish.response.text : '');
    expect(finish).toEqual({ type: 'finish', response: await model.generate(request) });
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(model.generate(ask([{ role: 'user', content: 'x' }], { signal: controller.signal }))).rejects.toThrow(
      'gone',
    );
  });
});
