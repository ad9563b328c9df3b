import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { basicTemplateFiles, gitIn, localTemplate, temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());
let counter = 0;

async function newActor(template: string, args: string[] = [], name = 'weather') {
  const target = join(folder.dir, `actor-${++counter}`);
  const run = memoryIo({ cwd: folder.dir });
  const code = await runCli(['new', name, target, '--local', template, ...args], run);
  return { code, target, stdout: run.stdout(), stderr: run.stderr() };
}

const read = (path: string) => readFileSync(path, 'utf8');

describe('actorkit new: rendering', () => {
  it('renders .njk files (suffix removed), templated names, and skips paths whose name renders empty', async () => {
    const template = localTemplate(folder.dir, basicTemplateFiles('v1'));
    const result = await newActor(template, ['--defaults', '--data', 'domain=finance', '--data', 'replicas=3']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(read(join(result.target, 'README.md'))).toBe('# weather\n\nDomain: finance, replicas: 3\n');
    expect(read(join(result.target, 'src', 'weather.ts'))).toBe('export const name = "weather";\n');
    expect(readdirSync(result.target).sort()).toEqual(['.actorkit-answers.yml', 'README.md', 'VERSION', 'src']);
    expect(result.stdout).toBe(
      `Rendered weather into ${result.target}\n  template: ${template} at HEAD\n\nNext: cd actor-${counter} && actorkit validate .\n`,
    );
  });

  it('renders a folder whose name is a condition once the condition holds, with defaults computed from earlier answers', async () => {
    const template = localTemplate(folder.dir, basicTemplateFiles('v1'));
    const result = await newActor(template, ['--defaults', '--data', 'include_panel=yes']);
    expect(result.code).toBe(0);
    expect(read(join(result.target, 'panel', 'index.ts'))).toBe('export const title = "weather panel";\n');
  });

  it('copies files without .njk byte for byte, keeps the executable bit, and never outputs template.yml', async () => {
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x7b, 0x7b, 0x20, 0x78, 0x20, 0x7d, 0x7d]);
    const template = localTemplate(
      folder.dir,
      {
        'template.yml': 'actor_name: {type: str}\n',
        'raw.txt': 'kept {{ as_is }}\n',
        'run.sh': '#!/bin/sh\necho hi\n',
      },
      { 'logo.bin': bytes },
    );
    chmodSync(join(template, 'run.sh'), 0o755);
    gitIn(template, 'add', 'run.sh');
    gitIn(template, 'commit', '--quiet', '-m', 'executable');
    const result = await newActor(template, ['--defaults']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(result.target, 'logo.bin'))).toEqual(bytes);
    expect(read(join(result.target, 'raw.txt'))).toBe('kept {{ as_is }}\n');
    expect(statSync(join(result.target, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(join(result.target, 'template.yml'))).toBe(false);
  });

  it('renders only the _subdirectory and leaves out _exclude globs', async () => {
    const template = localTemplate(folder.dir, {
      'template.yml':
        '_subdirectory: template\n_exclude: ["*.log", "docs/drafts", "**/tmp-*"]\nactor_name: {type: str}\n',
      'README.md': 'the template repository readme, not rendered\n',
      'template/app.ts.njk': 'export default "{{ actor_name }}";\n',
      'template/debug.log': 'x',
      'template/src/deep/trace.log': 'x',
      'template/docs/drafts/plan.md': 'x',
      'template/docs/guide.md': 'guide\n',
      'template/src/tmp-cache.json': '{}',
    });
    const result = await newActor(template, ['--defaults']);
    expect(result.code).toBe(0);
    const files = readdirSync(result.target, { recursive: true }).map(String).sort();
    expect(files).toEqual(['.actorkit-answers.yml', 'app.ts', 'docs', 'docs/guide.md', 'src', 'src/deep']);
    expect(read(join(result.target, 'app.ts'))).toBe('export default "weather";\n');
  });

  it('writes .actorkit-answers.yml with source, ref, commit and answers, without secrets or skipped questions', async () => {
    const template = localTemplate(folder.dir, {
      ...basicTemplateFiles('v1'),
      'template.yml': `${basicTemplateFiles('v1')['template.yml']}\napi_token:\n  type: str\n  secret: true\n  default: none\n`,
      'token.txt.njk': '{{ api_token }}\n',
    });
    const commit = gitIn(template, 'rev-parse', 'HEAD');
    const result = await newActor(template, ['--defaults', '--data', 'api_token=s3cr3t-value']);
    expect(result.code).toBe(0);
    const text = read(join(result.target, '.actorkit-answers.yml'));
    expect(text).not.toContain('s3cr3t-value');
    expect(read(join(result.target, 'token.txt'))).toBe('s3cr3t-value\n');
    expect(parse(text)).toEqual({
      source: 'local',
      location: template,
      ref: 'HEAD',
      commit,
      actorkit_version: expect.any(String),
      rendered_with: { actorkit_dependency: expect.any(String) },
      answers: { actor_name: 'weather', domain: 'weather', replicas: 1, include_panel: false },
    });
  });

  it('prints one JSON object with --json', async () => {
    const template = localTemplate(folder.dir, basicTemplateFiles('v1'));
    const result = await newActor(template, ['--defaults', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'ok',
      actorName: 'weather',
      targetDir: result.target,
      source: { kind: 'local', ref: 'HEAD' },
      files: ['.actorkit-answers.yml', 'README.md', 'VERSION', 'src/weather.ts'],
      closingMessage: `Next: cd actor-${counter} && actorkit validate .`,
    });
  });

  it('renders into an existing empty folder', async () => {
    const template = localTemplate(folder.dir, basicTemplateFiles('v1'));
    const target = join(folder.dir, 'empty-target');
    (await import('node:fs')).mkdirSync(target);
    const run = memoryIo({ cwd: folder.dir });
    expect(await runCli(['new', 'weather', 'empty-target', '--local', template, '--defaults'], run)).toBe(0);
    expect(read(join(target, 'VERSION'))).toBe('v1\n');
    expect(readdirSync(folder.dir).filter((name) => name.includes('.actorkit-'))).toEqual([]);
  });
});
