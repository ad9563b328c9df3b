import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../store/store.js';
import { historyFromMessages, messagesFromHistory } from './chat-history.js';
import type { ChatMessage } from './chat-model.js';

const at = '2026-01-01T00:00:00.000Z';
const turn: ChatMessage[] = [
  { role: 'user', content: 'greet Ada' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'hello_greet', arguments: '{"name":"Ada"}' },
      { id: 'c2', name: 'hello_time', arguments: '{}' },
    ],
  },
  { role: 'tool', toolCallId: 'c1', name: 'hello_greet', content: 'Hello, Ada!' },
  { role: 'tool', toolCallId: 'c2', name: 'hello_time', content: '12:00' },
  { role: 'assistant', content: 'Done: Hello, Ada!' },
];

describe('chat history', () => {
  it('round-trips a turn with tool calls through stored messages', () => {
    const stored = historyFromMessages(turn, at, 'msg_answer');
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(new Set(stored.map((message) => message.id)).size).toBe(5);
    expect(stored.at(-1)!.id).toBe('msg_answer');
    expect(stored[1]!.data).toEqual({
      tool_calls: [
        { id: 'c1', name: 'hello_greet', arguments: '{"name":"Ada"}' },
        { id: 'c2', name: 'hello_time', arguments: '{}' },
      ],
    });
    expect(stored[2]!.data).toEqual({ tool_call_id: 'c1', name: 'hello_greet' });
    expect(messagesFromHistory(stored)).toEqual(turn);
  });

  it('drops tool results whose call fell out of the window', () => {
    const stored = historyFromMessages(turn, at, 'msg_answer').slice(2);
    expect(messagesFromHistory(stored)).toEqual([{ role: 'assistant', content: 'Done: Hello, Ada!' }]);
  });

  it('drops tool calls whose results are missing, keeping their text', () => {
    const stored = historyFromMessages(
      [
        {
          role: 'assistant',
          content: 'Let me look',
          toolCalls: [
            { id: 'c1', name: 'a_b', arguments: '{}' },
            { id: 'c2', name: 'a_c', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', name: 'a_b', content: 'x' },
      ],
      at,
      'msg_answer',
    );
    expect(messagesFromHistory(stored)).toEqual([{ role: 'assistant', content: 'Let me look' }]);
    expect(messagesFromHistory(stored.slice(0, 1).map((message) => ({ ...message, content: '' })))).toEqual([]);
  });

  it('ignores malformed data and results for another call', () => {
    const stored: StoredMessage[] = [
      { id: 'm1', role: 'assistant', content: 'hi', data: { tool_calls: 'nope' }, createdAt: at },
      {
        id: 'm2',
        role: 'assistant',
        content: '',
        data: { tool_calls: [{ id: 'c1', name: 'a_b', arguments: '{}' }] },
        createdAt: at,
      },
      { id: 'm3', role: 'tool', content: 'x', data: { tool_call_id: 'other', name: 'a_b' }, createdAt: at },
      { id: 'm4', role: 'tool', content: 'x', data: null, createdAt: at },
      { id: 'm5', role: 'system', content: 'be kind', createdAt: at },
    ];
    expect(messagesFromHistory(stored)).toEqual([
      { role: 'assistant', content: 'hi' },
      { role: 'system', content: 'be kind' },
    ]);
  });
});
