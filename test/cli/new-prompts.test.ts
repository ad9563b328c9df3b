import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { runInTerminal } from './support/pseudo-terminal.js';
import { BASIC_TEMPLATE_YML, basicTemplateFiles, localTemplate, temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());
const template = localTemplate(folder.dir, {
  ...basicTemplateFiles('v1'),
  'template.yml': `${BASIC_TEMPLATE_YML}\napi_token:\n  type: str\n  help: Token of the weather API\n  secret: true\n`,
});
let counter = 0;

/** Runs `new` as if at a terminal, typing `lines` as the answers. */
async function answer(lines: string[], extra: string[] = []) {
  const target = `actor-${++counter}`;
  const run = memoryIo({ cwd: folder.dir, interactive: true });
  run.stdin.end(lines.map((line) => `${line}\n`).join(''));
  const code = await runCli(['new', 'weather', target, '--local', template, ...extra], run);
  return { code, target: join(folder.dir, target), stdout: run.stdout(), stderr: run.stderr() };
}

describe('actorkit new: questions at a terminal', () => {
  it('asks every unanswered question in order, re-asks a bad answer, and takes defaults on an empty line', async () => {
    const result = await answer(['many', '4', 'yes', '', 'tok-123'], ['--data', 'domain=finance']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('replicas [1]: ');
    expect(result.stderr).toContain("  expected an integer, got 'many'");
    expect(result.stderr).toContain('include_panel [false]: ');
    expect(result.stderr).toContain('panel_title [weather panel]: ');
    expect(result.stderr).toContain('  Token of the weather API\napi_token: ');
    expect(result.stderr).not.toContain('domain');
    expect(result.stderr).not.toContain('tok-123');
    const answers = parse(readFileSync(join(result.target, '.actorkit-answers.yml'), 'utf8')).answers;
    expect(answers).toEqual({
      actor_name: 'weather',
      domain: 'finance',
      replicas: 4,
      include_panel: true,
      panel_title: 'weather panel',
    });
  });

  it('with --defaults asks only the questions that have no default', async () => {
    const result = await answer(['', 'tok-456'], ['--defaults']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('  Token of the weather API\napi_token: \n  an answer is required\napi_token: \n');
  });

  it('refuses (exit 2) when the input ends before every question is answered', async () => {
    const result = await answer(['finance']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: the input ended before every question was answered');
  });
});

describe('actorkit new in a pseudo-terminal', () => {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };

  it('does not echo a secret answer and never records it', async () => {
    const target = join(folder.dir, 'in-terminal');
    const result = await runInTerminal(['new', 'weather', target, '--local', template, '--defaults'], {
      cwd: folder.dir,
      env,
      steps: [{ after: 'api_token: ', keys: 'tok-789\r' }],
    });
    expect(result.code).toBe(0);
    expect(result.output).toContain('  Token of the weather API');
    expect(result.output).not.toContain('tok-789');
    expect(readFileSync(join(target, '.actorkit-answers.yml'), 'utf8')).not.toContain('tok-789');
  });

  it('cancels on Ctrl-C at a prompt (exit 2) and writes nothing', async () => {
    const target = join(folder.dir, 'cancelled');
    const result = await runInTerminal(['new', 'weather', target, '--local', template], {
      cwd: folder.dir,
      env,
      steps: [{ after: 'domain (weather/finance) [weather]: ', keys: '\u0003' }],
    });
    expect(result.code).toBe(2);
    expect(result.output).toContain('error: cancelled at the prompt (Ctrl-C); nothing was changed');
    expect(existsSync(target)).toBe(false);
  });

  it('with the bundled template: a short name gets no broken default, a bad URL and a wrong-case choice are handled, the folder is the slug', async () => {
    const cwd = join(folder.dir, 'bundled-terminal');
    mkdirSync(cwd);
    const result = await runInTerminal(['new', 'j'], {
      cwd,
      env,
      timeoutMs: 50_000,
      steps: [
        { after: 'actor_slug [j]: ', keys: '\r' },
        { after: 'description [j: a chat actor built with actorkit.]: ', keys: '\r' },
        { after: 'domain_module: ', keys: 'j\r' },
        { after: 'domain_module: ', keys: 'jokes\r' },
        { after: 'include_panel [false]: ', keys: '\r' },
        { after: 'fleet_mesh [false]: ', keys: '\r' },
        { after: 'integration_type (none/n8n) [none]: ', keys: 'N8N\r' },
        { after: 'platform_expose_external_api [true]: ', keys: '\r' },
        { after: 'expose_mcp [false]: ', keys: '\r' },
        { after: 'expose_ag_ui [false]: ', keys: '\r' },
        { after: 'expose_a2a [false]: ', keys: '\r' },
        { after: 'tracing [false]: ', keys: '\r' },
        { after: 'declare_readiness_probe [true]: ', keys: '\r' },
        { after: 'llm_base_url []: ', keys: 'not a url\r' },
        { after: 'llm_base_url []: ', keys: 'http://127.0.0.1:9/v1\r' },
        { after: 'llm_model []: ', keys: 'x\r' },
        { after: 'image_repo [registry.example.com/actors/j]: ', keys: '\r' },
      ],
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(
      "  (the default 'j' is not valid: one lower-case word of 2 to 31 letters and digits)\r\ndomain_module: ",
    );
    expect(result.output).toContain('  one lower-case word of 2 to 31 letters and digits\r\ndomain_module: ');
    expect(result.output).toContain(
      '  an absolute http:// or https:// URL without user:password@, such as http://127.0.0.1:11434/v1\r\nllm_base_url []: ',
    );
    expect(result.output).toContain('cd j && npm install && WORKFLOW_BASE_URL=http://127.0.0.1:5678 npm start');
    const answers = parse(readFileSync(join(cwd, 'j', '.actorkit-answers.yml'), 'utf8')).answers;
    expect(answers).toMatchObject({
      actor_slug: 'j',
      domain_module: 'jokes',
      integration_type: 'n8n',
      llm_base_url: 'http://127.0.0.1:9/v1',
      llm_model: 'x',
    });
  }, 60_000);
});
