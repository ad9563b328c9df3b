import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { withoutPackingLine } from '../support/packing-line.js';
import { memoryIo } from './support/memory-io.js';
import { runInFreshFolder } from './support/run-in-fresh-folder.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());

const run = (args: string[]) => runInFreshFolder(folder.dir, args);

const answersIn = (dir: string) =>
  parse(readFileSync(join(dir, '.actorkit-answers.yml'), 'utf8')).answers as Record<string, unknown>;

describe('actorkit new with the bundled template: answers are checked when given', () => {
  it.each([
    ['llm_base_url=not a url', 'llm_base_url: an absolute http:// or https:// URL'],
    ['llm_base_url=ftp://models.example.com/v1', 'llm_base_url: an absolute http:// or https:// URL'],
    ['llm_model=gpt 4', 'llm_model: a model name'],
    ['description=two\nlines', 'description: one line of at most 300 characters'],
    ['actor_slug=Bad-Slug', 'actor_slug: kebab-case'],
    ['integration_type=zapier', "integration_type: 'zapier' is not one of: none, n8n"],
  ])('refuses --data %s (exit 2, nothing written)', async (pair, message) => {
    const result = await run(['new', 'weather', '--defaults', '--data', pair]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.left).toEqual([]);
  });

  it('accepts a model server and model, and a choice in any case', async () => {
    const result = await run([
      'new',
      'weather',
      '--defaults',
      '--data',
      'llm_base_url=http://127.0.0.1:9/v1',
      '--data',
      'llm_model=llama3.1:8b',
      '--data',
      'integration_type=N8N',
    ]);
    expect(withoutPackingLine(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(answersIn(join(result.cwd, 'weather'))).toMatchObject({
      llm_base_url: 'http://127.0.0.1:9/v1',
      llm_model: 'llama3.1:8b',
      integration_type: 'n8n',
    });
  });
});

describe('actorkit new with the bundled template: short and odd names', () => {
  it('`new j --defaults` names exactly the question that needs a value, and why', async () => {
    const result = await run(['new', 'j', '--defaults']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: this question needs a value: domain_module (the default 'j' is not valid: one lower-case word of 2 to 31 letters and digits); pass --data domain_module=VALUE\n",
    );
    expect(result.left).toEqual([]);
    const fixed = await run(['new', 'j', '--defaults', '--data', 'domain_module=jokes']);
    expect(fixed.code).toBe(0);
    expect(answersIn(join(fixed.cwd, 'j'))).toMatchObject({
      actor_slug: 'j',
      domain_module: 'jokes',
      image_repo: 'registry.example.com/actors/j',
    });
  });

  it('a name ending in - needs a slug; the questions computed from it wait for it', async () => {
    const result = await run(['new', 'weather-', '--defaults']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "this question needs a value: actor_slug (the default 'weather-' is not valid: kebab-case",
    );
    expect(result.stderr).toContain('domain_module, image_repo depend on that answer and will be settled then');
    expect((await run(['new', 'weather-', '--defaults', '--data', 'actor_slug=weather'])).code).toBe(0);
  });

  it('without a terminal or --defaults, separates what --defaults answers from what needs a value', async () => {
    const result = await run(['new', 'j']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: no terminal to ask in: pass --defaults to accept the defaults of actor_slug, description, include_panel,',
    );
    expect(result.stderr).toContain('this question needs a value: domain_module (');
    expect(result.stderr).not.toMatch(/needs? a value:[^;]*image_repo/);
  });

  it('renders into ./<slug> when TARGET_DIR is left out', async () => {
    const result = await run(['new', 'My Bot', '--defaults']);
    expect(result.code).toBe(0);
    expect(result.left).toEqual(['my-bot']);
    expect(result.stdout).toContain(`Rendered My Bot into ${join(result.cwd, 'my-bot')}`);
    expect(result.stdout).toContain('1. cd my-bot && npm install && npm start');
    const again = await runCli(['new', 'My Bot', '--defaults'], memoryIo({ cwd: result.cwd }));
    expect(again).toBe(2);
  });
});
