import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestActor } from '../../src/testing/create-test-actor.js';

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the package, so `openapi-fetch` resolves from its node_modules.
mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'actorkit-typed-client-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A client of the generated types: invoke and stats, no media-type filter, reading typed fields and the problem's `code`. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });

export async function chat(): Promise<string> {
  const { data, error } = await client.POST('/agent/invoke', {
    params: { header: { 'X-Tenant-Id': 'acme', 'Idempotency-Key': 'k-1' } },
    body: { user_identifier: 'u-1', session_id: 's-1', message: 'Hello' },
  });
  if (error !== undefined) return error.code;
  // No narrowing away a stream: openapi-fetch reads the body as JSON, and the stream's \`schema\` admits none (issue #40).
  // A background run (202, asked with "background" or Prefer: respond-async) is the run, not the reply.
  if ('state' in data) return data.state;
  // A run that waits for a person's approval of tool calls says so; its approvals name them.
  const status: 'completed' | 'awaiting_input' = data.status;
  return \`\${status}: \${data.message.content}\`;
}

export async function invocations(): Promise<number> {
  const { data, error } = await client.GET('/stats');
  if (error !== undefined) return error.status;
  return data.invocations + data.latency_ms.max;
}
`;

/** Type-checks the client against the types generated from the document; the diagnostics as text. */
async function typeCheck(document: unknown): Promise<string> {
  writeFileSync(join(scratch, 'schema.ts'), astToString(await openapiTS(document as never)));
  writeFileSync(join(scratch, 'client.ts'), CLIENT);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  };
  const program = ts.createProgram([join(scratch, 'client.ts')], options);
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => scratch,
    getNewLine: () => '\n',
  });
}

describe('openapi-typescript + openapi-fetch type a client of /openapi.json (issues #27, #40)', () => {
  for (const [mode, env] of [
    ['no key', {}],
    ['key on', { API_KEY_ENABLED: 'true', API_KEY: 'k-1' }],
  ] as const) {
    it(`${mode}: a call of invoke and of stats type-checks with no media-type filter`, async () => {
      const app = await createTestActor({ env });
      const diagnostics = await typeCheck(await (await app.request('/openapi.json')).json());
      expect(diagnostics).toBe('');
    }, 60_000);
  }
});
