import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEvalCases } from './eval-case.js';
import { playgroundCaseHandler } from './playground-case.js';

const scratch = mkdtempSync(join(tmpdir(), 'actorkit-playground-case-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let folders = 0;

/** A fresh actor folder (no evals/ yet) and the route's handler on it. */
function actorFolder(apiKeys: readonly string[] = []) {
  const actorDir = join(scratch, `actor-${++folders}`);
  mkdirSync(actorDir);
  return { actorDir, handle: playgroundCaseHandler({ actorDir, apiKeys }) };
}

const URL_OF_ROUTE = 'http://127.0.0.1:8080/playground/eval-cases';

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL_OF_ROUTE, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const lookup = {
  name: 'looks-up-testing',
  turns: ['use tool shop_lookup with {"topic": "testing"}'],
  tools: [{ name: 'shop_lookup', args: { topic: 'testing' } }],
};

async function problemOf(response: Response) {
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  return (await response.json()) as { code: string; detail?: string; errors?: { pointer: string; detail: string }[] };
}

describe('the playground\'s "Save as eval case" route (actorkit dev)', () => {
  it('answers GET with the folder, so the page knows it may offer the button', async () => {
    const { handle } = actorFolder();
    const response = await handle(new Request(URL_OF_ROUTE));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ directory: 'evals' });
  });

  it('writes evals/<name>.yaml with the turns, the tool called and its arguments, which the eval loader reads', async () => {
    const { actorDir, handle } = actorFolder();
    const response = await handle(post({ ...lookup, tenant: 'acme' }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ file: 'evals/looks-up-testing.yaml', name: 'looks-up-testing' });
    const text = readFileSync(join(actorDir, 'evals', 'looks-up-testing.yaml'), 'utf8');
    expect(text).toMatch(
      /^description: Saved from the playground on \d{4}-\d\d-\d\d \(edit the expectations to what must hold\)\n/,
    );
    expect(text).toContain(
      [
        'tenant: acme',
        'turns:',
        `  - 'use tool shop_lookup with {"topic": "testing"}'`,
        'expect:',
        '  tools:',
        '    called:',
        '      - name: shop_lookup',
        '        args:',
        '          topic: testing',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('in_order');
    const [loaded] = await loadEvalCases(join(actorDir, 'evals'), actorDir);
    expect(loaded).toMatchObject({
      name: 'looks-up-testing',
      file: 'evals/looks-up-testing.yaml',
      tenant: 'acme',
      turns: lookup.turns,
      expect: { tools: { called: [{ name: 'shop_lookup', args: { topic: 'testing' } }] } },
    });
  });

  it('keeps several calls in order (in_order: true), writes a given session, and makes a /…/-looking argument match only itself', async () => {
    const { actorDir, handle } = actorFolder();
    const response = await handle(
      post({
        name: 'two_calls',
        session: 'replayed',
        turns: ['first', 'second'],
        tools: [
          { name: 'shop_lookup', args: { topic: '/a.b/' } },
          { name: 'shop_lookup', args: { topic: 'plain', nested: { list: ['/x/'] } } },
          { name: 'shop_ping', args: 'not an object' },
        ],
      }),
    );
    expect(response.status).toBe(201);
    const [loaded] = await loadEvalCases(join(actorDir, 'evals'), actorDir);
    expect(loaded?.session).toBe('replayed');
    expect(loaded?.turns).toEqual(['first', 'second']);
    expect(loaded?.expect?.tools).toEqual({
      called: [
        { name: 'shop_lookup', args: { topic: '/^\\/a\\.b\\/$/' } },
        { name: 'shop_lookup', args: { topic: 'plain', nested: { list: ['/^\\/x\\/$/'] } } },
        { name: 'shop_ping' },
      ],
      in_order: true,
    });
    const pattern = String(loaded?.expect?.tools?.called?.[0]?.args?.topic).slice(1, -1);
    expect(new RegExp(pattern).test('/a.b/')).toBe(true);
    expect(new RegExp(pattern).test('/axb/')).toBe(false);
  });

  it('refuses a name that is not a safe file name with 422, and writes nothing anywhere', async () => {
    const { actorDir, handle } = actorFolder();
    for (const name of ['../escape', 'a/b', 'a\\b', '', '.hidden', 'x.yaml', '-flag', 'é', 'x'.repeat(81), 42]) {
      const response = await handle(post({ ...lookup, name }));
      expect(response.status, String(name)).toBe(422);
      const problem = await problemOf(response);
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors?.[0]?.pointer).toBe('/name');
    }
    expect(readdirSync(actorDir)).toEqual([]);
    expect(existsSync(join(scratch, 'escape.yaml'))).toBe(false);
  });

  it('refuses an empty conversation, an empty turn and an unknown field with 422 naming the field', async () => {
    const { actorDir, handle } = actorFolder();
    const cases: [unknown, string][] = [
      [{ name: 'empty', turns: [] }, '/turns'],
      [{ name: 'empty' }, '/turns'],
      [{ name: 'blank', turns: ['  '] }, '/turns/0'],
      [{ name: 'extra', turns: ['hi'], reply: 'x' }, '/reply'],
    ];
    for (const [body, pointer] of cases) {
      const response = await handle(post(body));
      expect(response.status, pointer).toBe(422);
      expect((await problemOf(response)).errors?.[0]?.pointer).toBe(pointer);
    }
    const empty = await problemOf(await handle(post({ name: 'empty', turns: [] })));
    expect(empty.detail).toBe('the conversation is empty: send a message first');
    expect(existsSync(join(actorDir, 'evals'))).toBe(false);
  });

  it('refuses a case that exists (409 eval_case_exists, also as .yml) unless asked to overwrite', async () => {
    const { actorDir, handle } = actorFolder();
    expect((await handle(post(lookup))).status).toBe(201);
    const again = await handle(post({ ...lookup, turns: ['other'] }));
    expect(again.status).toBe(409);
    expect((await problemOf(again)).code).toBe('eval_case_exists');
    const overwritten = await handle(post({ ...lookup, turns: ['other'], overwrite: true }));
    expect(overwritten.status).toBe(200);
    expect(readFileSync(join(actorDir, 'evals', 'looks-up-testing.yaml'), 'utf8')).toContain('- other');
    writeFileSync(join(actorDir, 'evals', 'hand-written.yml'), 'turns: [hi]\n');
    expect((await handle(post({ ...lookup, name: 'hand-written' }))).status).toBe(409);
  });

  it('refuses a body that is not JSON (415, 422), another method (405) and a page of another origin (403)', async () => {
    const { actorDir, handle } = actorFolder();
    const text = await handle(post(JSON.stringify(lookup), { 'Content-Type': 'text/plain' }));
    expect(text.status).toBe(415);
    expect((await problemOf(text)).code).toBe('unsupported_media_type');
    const broken = await handle(post('{"name":'));
    expect(broken.status).toBe(422);
    expect((await problemOf(broken)).detail).toBe('the body is not JSON');
    const put = await handle(new Request(URL_OF_ROUTE, { method: 'PUT' }));
    expect(put.status).toBe(405);
    expect((await problemOf(put)).code).toBe('method_not_allowed');
    const foreign = await handle(post(lookup, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }));
    expect(foreign.status).toBe(403);
    expect((await problemOf(foreign)).code).toBe('origin_not_allowed');
    expect(existsSync(join(actorDir, 'evals'))).toBe(false);
  });

  it("needs the actor's key when the actor has one", async () => {
    const { handle } = actorFolder(['k-1']);
    expect((await handle(new Request(URL_OF_ROUTE))).status).toBe(200);
    const missing = await handle(post(lookup));
    expect(missing.status).toBe(401);
    expect((await problemOf(missing)).code).toBe('missing_api_key');
    expect((await handle(post(lookup, { 'X-API-Key': 'wrong' }))).status).toBe(401);
    expect((await handle(post(lookup, { 'X-API-Key': 'k-1' }))).status).toBe(201);
  });
});
