import { describe, expect, it } from 'vitest';
import { screenToolCalls } from './screen-tool-calls.js';

const call = (id: number | string, args: unknown, method = 'tools/call') => ({ jsonrpc: '2.0', id, method, params: { name: 'chat', arguments: args } });

describe('screenToolCalls', () => {
  it('refuses non-object arguments and prototype keys by id, drops those arguments, and leaves the rest alone', () => {
    const messages = [
      call(1, { message: 'fine', nested: { constructor_name: 'x' } }),
      call(2, []),
      call('three', JSON.parse('{"a":[{"b/c~":{"__proto__":{}}}]}')),
      call(4, { prototype: 1 }, 'tools/list'),
      call(5, undefined),
    ];
    const refused = screenToolCalls(messages);
    expect([...refused]).toEqual([
      [2, 'arguments must be a JSON object, got an array'],
      ['three', '/a/0/b~1c~0/__proto__ is not allowed (the keys __proto__, constructor and prototype are refused)'],
    ]);
    expect(messages.map((message) => 'arguments' in message.params)).toEqual([true, false, false, true, true]);
  });

  it('walks arguments nested 100,000 deep without overflowing the stack', () => {
    const depth = 100_000;
    const args = JSON.parse(`${'{"a":'.repeat(depth)}{"constructor":1}${'}'.repeat(depth)}`) as unknown;
    const refused = screenToolCalls([call(1, args)]);
    expect(refused.get(1)).toMatch(/^(\/a){100000}\/constructor is not allowed/);
  });
});
