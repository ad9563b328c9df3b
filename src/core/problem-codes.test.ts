import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ActorError } from './actor-error.js';
import { withProblemCodeTable } from './problem-code-table.js';
import { isProblemCode, problemCatalogue, type ProblemCode } from './problem-codes.js';
import { problemDocument, problemResponse } from './problem-response.js';
import { PROBLEM_DOCUMENT_SCHEMA, problemSchemaFor } from './problem-schema.js';
import { createTestActor } from '../testing/create-test-actor.js';

const root = new URL('../../', import.meta.url);
const codes = Object.keys(problemCatalogue) as ProblemCode[];

function sourceFiles(folder: string): string[] {
  return readdirSync(new URL(folder, root), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(new URL('.', root).pathname, join(entry.parentPath, entry.name)));
}

describe('the catalogue of problem codes', () => {
  it('holds stable snake_case codes with an error status, a title and a meaning', () => {
    for (const code of codes) {
      const { status, title, meaning } = problemCatalogue[code];
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(title.trim(), code).not.toBe('');
      expect(meaning.trim(), code).not.toBe('');
    }
    expect(isProblemCode('validation_failed')).toBe(true);
    expect(isProblemCode('toString')).toBe(false);
  });

  it('gives an ActorError built from a code its status and title', () => {
    for (const code of codes) {
      const error = new ActorError(code, { detail: 'why' });
      expect(error).toMatchObject({
        status: problemCatalogue[code].status,
        code,
        title: problemCatalogue[code].title,
        detail: 'why',
        message: 'why',
      });
    }
    expect(new ActorError('draining')).toMatchObject({
      status: 503,
      code: 'draining',
      title: 'The actor is shutting down',
      message: 'The actor is shutting down',
      headers: {},
    });
  });

  it('still lets an actor throw a code of its own with its own status and title', () => {
    expect(new ActorError(409, 'not_now', 'Not now', { detail: 'later' })).toMatchObject({
      status: 409,
      code: 'not_now',
      title: 'Not now',
      detail: 'later',
    });
  });

  it('is where every throw site of src/ and cli/ takes its status and title from', () => {
    const literalSites = [...sourceFiles('src/'), ...sourceFiles('cli/')].flatMap((file) =>
      readFileSync(new URL(file, root), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /new ActorError\(\s*\d/.test(line) && !line.trimStart().startsWith('*') ? [`${file}:${index + 1}`] : [],
        ),
    );
    expect(literalSites).toEqual([]);
  });

  it('is the error-code table of docs/http-api.md (`npm run docs:problems`)', () => {
    const doc = readFileSync(new URL('docs/http-api.md', root), 'utf8');
    expect(withProblemCodeTable(doc), 'docs/http-api.md is stale: run `npm run docs:problems`').toBe(doc);
    for (const code of codes) expect(doc).toContain(`| \`${code}\` |`);
    expect(() => withProblemCodeTable('# no markers')).toThrow(/markers/);
  });

  it('is what the docs say: every "<status> `code`" in docs/ and README.md names a catalogue code with that status', () => {
    const docs = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const mentions = docs.flatMap((file) =>
      [...readFileSync(new URL(file, root), 'utf8').matchAll(/\b([45]\d\d) `([a-z_]+)`/g)].map(([, status, code]) => ({
        file,
        status: Number(status),
        code: code!,
      })),
    );
    expect(mentions.length).toBeGreaterThan(40);
    const wrong = mentions.filter(
      ({ status, code }) => !isProblemCode(code) || problemCatalogue[code].status !== status,
    );
    expect(wrong).toEqual([]);
  });

  it('describes each code for the OpenAPI document: the problem schema with that code and status', () => {
    expect(problemSchemaFor('payload_too_large')).toEqual({
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { code: { const: 'payload_too_large' }, status: { const: 413 } } },
      ],
    });
    expect(problemSchemaFor('invalid_json', 'invalid_header')).toEqual({
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { code: { enum: ['invalid_json', 'invalid_header'] }, status: { const: 400 } } },
      ],
    });
    expect(PROBLEM_DOCUMENT_SCHEMA).toMatchObject({ required: ['type', 'title', 'status', 'code', 'request_id'] });
  });

  it('gives /openapi.json its Problem schema, which problemSchemaFor refers to', async () => {
    const document = (await (await (await createTestActor()).request('/openapi.json')).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    expect(document.components.schemas.Problem).toEqual(PROBLEM_DOCUMENT_SCHEMA);
  });
});

describe('problemDocument and problemResponse', () => {
  it('turn an error into the one RFC 9457 body, whoever answers', async () => {
    const error = new ActorError('validation_failed', {
      detail: 'The request body has 1 invalid field',
      errors: [{ pointer: '/name', detail: 'is required' }],
      headers: { 'Retry-After': '1' },
    });
    const document = problemDocument(error, 'req-1');
    expect(document).toEqual({
      type: 'https://actorkit.dev/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      detail: 'The request body has 1 invalid field',
      code: 'validation_failed',
      request_id: 'req-1',
      errors: [{ pointer: '/name', detail: 'is required' }],
    });
    const response = problemResponse(error, 'req-1');
    expect(response.status).toBe(422);
    expect(response.headers.get('Content-Type')).toBe('application/problem+json');
    expect(response.headers.get('X-Request-Id')).toBe('req-1');
    expect(response.headers.get('Retry-After')).toBe('1');
    expect(await response.json()).toEqual(document);
  });
});
