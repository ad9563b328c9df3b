// The seam from `actorkit new --data expose_mcp=true` to an MCP client: the fresh actor validates
// and serves /mcp with its own read-only domain tool.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorApp } from '../../src/app/create-actor-app.js';
import { silentLogger } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { connectMcpClient } from '../contract/mcp-contract.js';
import { ENDS_VALID } from '../support/ends-valid.js';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { withoutPackingLine } from '../support/packing-line.js';
import { serveOnLoopback } from './loopback.js';

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
// Inside the checkout (under the ignored .actorkit/), so the actor resolves valibot and the MCP SDK
// from the repository's node_modules, and vitest maps its `actorkit` imports to src/.
mkdirSync(join(REPOSITORY_ROOT, '.actorkit'), { recursive: true });
const scratch = mkdtempSync(join(REPOSITORY_ROOT, '.actorkit', 'seam-mcp-'));
const actorDir = join(scratch, 'tide-actor');

function actorkit(...args: string[]) {
  const result = spawnSync(process.execPath, [BINARY, ...args], {
    cwd: scratch,
    env: { PATH: process.env.PATH, HOME: scratch },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('an actor rendered with expose_mcp=true', () => {
  it('renders with the SDK as a dependency, validates, and its configuration lists /mcp', () => {
    const created = actorkit(
      'new',
      'Tide Actor',
      actorDir,
      '--defaults',
      '--data',
      'expose_mcp=true',
      '--data',
      'domain_module=tide',
    );
    expect(withoutPackingLine(created.stderr)).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/POST +\/mcp/);
    const packageJson = JSON.parse(readFileSync(join(actorDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(packageJson.dependencies['@modelcontextprotocol/sdk']).toMatch(/^\^1\./);
    const checked = actorkit('validate', actorDir);
    expect(checked.stdout).toMatch(ENDS_VALID);
    expect(checked.code).toBe(0);
    const config = JSON.parse(readFileSync(join(actorDir, 'src', 'platform', 'config.json'), 'utf8')) as {
      contract: { endpoints: { method: string; path: string }[] };
    };
    expect(config.contract.endpoints).toContainEqual({ method: 'ANY', path: '/mcp', presence: 'conditional' });
  });

  it('serves /mcp: an SDK client lists chat and tide_lookup, chats and looks a topic up', async () => {
    const { createApp } = (await import(join(actorDir, 'src', 'app.ts'))) as {
      createApp: (env: Record<string, string>, overrides: object) => ActorApp;
    };
    const app = createApp({ LLM_PROVIDER: 'offline' }, { store: new MemoryStore(), logger: silentLogger });
    const handle = await serveOnLoopback(app);
    try {
      const client = await connectMcpClient(handle.url);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
        ['chat', false],
        ['tide_lookup', true],
      ]);
      const chat = await client.callTool({
        name: 'chat',
        arguments: { message: 'use tool tide_lookup with {"topic": "neap"}' },
      });
      expect(chat.structuredContent).toMatchObject({ tool_calls: [{ name: 'tide_lookup', status: 'ok' }] });
      const lookup = await client.callTool({ name: 'tide_lookup', arguments: { topic: 'spring tide' } });
      expect(lookup.structuredContent).toMatchObject({ topic: 'spring tide' });
      await client.close();
    } finally {
      await handle.close();
    }
  });
});
