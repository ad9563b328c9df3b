import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ActorTool, SyncRunUnsupportedError, TOOL_NAME_PATTERN } from './actor-tool.js';

const args = v.object({ name: v.pipe(v.string(), v.minLength(1)), times: v.optional(v.number(), 1) });
const greet = (name = 'hello_greet') =>
  new ActorTool({
    name,
    description: 'Greets a person by name',
    argsSchema: args,
    run: ({ name: who, times }) => `Hello, ${who}!`.repeat(times),
  });

describe('ActorTool', () => {
  it('exposes name, description and the argument schema as JSON Schema for the model', () => {
    const tool = greet();
    expect(tool.definition).toEqual({
      name: 'hello_greet',
      description: 'Greets a person by name',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, times: { type: 'number', default: 1 } },
        required: ['name'],
      },
    });
    expect(tool.jsonSchema).not.toHaveProperty('$schema');
  });

  it('is not read-only unless built with readOnly: true (only read-only tools are offered at /mcp)', () => {
    const base = { description: 'Looks up', argsSchema: v.object({}), run: () => 'ok' };
    expect(new ActorTool({ name: 'demo_lookup', ...base }).readOnly).toBe(false);
    expect(new ActorTool({ name: 'demo_lookup', ...base, readOnly: true }).readOnly).toBe(true);
  });

  it('runs synchronously and asynchronously; runAsync falls back to run', async () => {
    const tool = greet();
    expect(tool.run({ name: 'Ada', times: 2 })).toBe('Hello, Ada!Hello, Ada!');
    expect(await tool.runAsync({ name: 'Ada', times: 1 })).toBe('Hello, Ada!');
  });

  it('refuses run on a tool that only has runAsync, and passes the context through', async () => {
    const tool = new ActorTool({
      name: 'hello_who',
      description: 'Says who asks',
      argsSchema: v.object({}),
      runAsync: async (_args, context) => context.tenantId,
    });
    expect(() => tool.run({})).toThrow(SyncRunUnsupportedError);
    const context = {
      signal: new AbortController().signal,
      tenantId: 'acme',
      sessionId: 's',
      userIdentifier: 'u',
      requestId: 'r',
      settings: {},
      oauthToken: async () => 'token',
    };
    expect(await tool.runAsync({}, context)).toBe('acme');
  });

  it('gives a tool run without a context no OAuth token: every provider is unknown', async () => {
    const tool = new ActorTool({
      name: 'github_whoami',
      description: 'Calls GitHub',
      argsSchema: v.object({}),
      runAsync: (_args, context) => context.oauthToken('github'),
    });
    await expect(tool.runAsync({})).rejects.toMatchObject({
      status: 404,
      code: 'unknown_provider',
      detail: 'No OAuth provider named "github" is configured; configured: none',
    });
  });

  it('checks arguments and names every problem with its path', () => {
    const tool = greet();
    expect(tool.parseArgs({ name: 'Ada' })).toEqual({ success: true, output: { name: 'Ada', times: 1 } });
    const bad = tool.parseArgs({ name: '', times: 'two' });
    expect(bad.success).toBe(false);
    expect(bad.success ? [] : bad.problems).toEqual([
      expect.stringMatching(/^name: /),
      expect.stringMatching(/^times: /),
    ]);
    expect(tool.parseArgs('not an object')).toMatchObject({
      success: false,
      problems: [expect.stringMatching(/^\(arguments\): /)],
    });
  });

  it.each([
    'greet',
    'HelloGreet',
    'hello-greet',
    'hello__greet',
    '_hello_greet',
    'hello_greet_',
    '1hello_greet',
    'hello greet',
    `hello_${'x'.repeat(60)}`,
  ])('refuses the tool name %j', (name) => {
    expect(() => greet(name)).toThrow(/snake_case, namespaced by domain/);
  });

  it('accepts any snake_case name with a domain prefix', () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    fc.assert(
      fc.property(
        segment,
        fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 4 }),
        (domain, rest) => {
          const name = [domain, ...rest].join('_');
          expect(TOOL_NAME_PATTERN.test(name)).toBe(true);
          expect(greet(name).name).toBe(name);
        },
      ),
    );
  });

  it('refuses a tool without a description, without a function, or with non-object arguments', () => {
    expect(() => new ActorTool({ name: 'hello_greet', description: ' ', argsSchema: args, run: () => 1 })).toThrow(
      /description/,
    );
    expect(() => new ActorTool({ name: 'hello_greet', description: 'd', argsSchema: args })).toThrow(/run or runAsync/);
    expect(
      () => new ActorTool({ name: 'hello_greet', description: 'd', argsSchema: v.string(), run: () => 1 }),
    ).toThrow(/object schema/);
  });

  it('shows an explicit JSON Schema instead of the converted one', () => {
    const tool = new ActorTool({
      name: 'docs_search',
      description: 'd',
      argsSchema: v.record(v.string(), v.unknown()),
      jsonSchema: { $schema: 'x', type: 'object', properties: { q: { type: 'string' } } },
      run: () => 1,
    });
    expect(tool.jsonSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });

  it('needsApproval: never by default, always with true, per call with a function (any truthy answer asks); a bad value throws at setup', async () => {
    const base = { description: 'Pays', argsSchema: v.object({ amount: v.number() }), run: () => 'paid' };
    expect(await new ActorTool({ name: 'bank_pay', ...base }).needsApproval({ amount: 1 })).toBe(false);
    expect(await new ActorTool({ name: 'bank_pay', ...base, needsApproval: true }).needsApproval({ amount: 1 })).toBe(
      true,
    );
    const large = new ActorTool({ name: 'bank_pay', ...base, needsApproval: async ({ amount }) => amount > 100 });
    expect([await large.needsApproval({ amount: 5 }), await large.needsApproval({ amount: 500 })]).toEqual([
      false,
      true,
    ]);
    const sloppy = new ActorTool({ name: 'bank_pay', ...base, needsApproval: () => 'yes' as unknown as boolean });
    expect(await sloppy.needsApproval({ amount: 5 })).toBe(true);
    expect(() => new ActorTool({ name: 'bank_pay', ...base, needsApproval: 'always' as unknown as boolean })).toThrow(
      /needsApproval must be a boolean or a function/,
    );
  });
});
