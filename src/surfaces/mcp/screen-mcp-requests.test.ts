import { describe, expect, it } from 'vitest';
import { toolArgumentsProblem } from './screen-mcp-requests.js';

describe('toolArgumentsProblem', () => {
  it('refuses arguments that are not a JSON object and prototype keys at any depth, naming their pointer', () => {
    expect(toolArgumentsProblem(undefined)).toBeUndefined();
    expect(toolArgumentsProblem({ message: 'fine', nested: { constructor_name: 'x' } })).toBeUndefined();
    expect(toolArgumentsProblem([])).toBe('arguments must be a JSON object, got an array');
    expect(toolArgumentsProblem(null)).toBe('arguments must be a JSON object, got null');
    expect(toolArgumentsProblem('hi')).toBe('arguments must be a JSON object, got a string');
    expect(toolArgumentsProblem(JSON.parse('{"a":[{"b/c~":{"__proto__":{}}}]}'))).toBe(
      '/a/0/b~1c~0/__proto__ is not allowed (the keys __proto__, constructor and prototype are refused)',
    );
    expect(toolArgumentsProblem({ prototype: 1 })).toMatch(/^\/prototype is not allowed/);
  });

  it('walks arguments nested 100,000 deep without overflowing the stack', () => {
    const depth = 100_000;
    const args = JSON.parse(`${'{"a":'.repeat(depth)}{"constructor":1}${'}'.repeat(depth)}`) as unknown;
    expect(toolArgumentsProblem(args)).toMatch(/^(\/a){100000}\/constructor is not allowed/);
  });
});
