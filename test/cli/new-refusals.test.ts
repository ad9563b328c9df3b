import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { runInFreshFolder } from './support/run-in-fresh-folder.js';
import { basicTemplateFiles, localTemplate, temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());
const template = localTemplate(folder.dir, basicTemplateFiles('v1'));

const run = (args: string[]) => runInFreshFolder(folder.dir, args);

describe('actorkit new: refusals (exit 2, nothing written)', () => {
  it.each([
    ['--data actor_id=…', ['--data', 'actor_id=abc']],
    ['--actor-id', ['--actor-id', 'abc']],
    ['--actor_id=…', ['--actor_id=abc']],
  ])('refuses %s and explains that the platform assigns identity', async (_what, extra) => {
    const result = await run(['new', 'weather', 'out', '--local', template, '--defaults', ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'actor_id cannot be set: the platform assigns each actor its identity when you register it',
    );
    expect(result.left).toEqual([]);
  });

  it('refuses unknown --data keys, naming every one and the known questions', async () => {
    const result = await run([
      'new',
      'weather',
      'out',
      '--local',
      template,
      '--defaults',
      '--data',
      'colour=red',
      '--data',
      'size=2',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "this template has no question 'colour', 'size' (its questions: domain, replicas, include_panel, panel_title)",
    );
    expect(result.left).toEqual([]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'refuses --data %s=x like any other unknown key',
    async (key) => {
      const result = await run(['new', 'weather', 'out', '--local', template, '--defaults', '--data', `${key}=x`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: this template has no question '${key}' (its questions: domain, replicas, include_panel, panel_title)\n`,
      );
      expect(result.left).toEqual([]);
    },
  );

  it('refuses --data values that do not convert or validate, listing all of them', async () => {
    const result = await run([
      'new',
      'Bad_Name',
      'out',
      '--local',
      template,
      '--defaults',
      '--data',
      'replicas=many',
      '--data',
      'domain=sports',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('actor_name: lower-case letters, digits and dashes, starting with a letter');
    expect(result.stderr).toContain("replicas: expected an integer, got 'many'");
    expect(result.stderr).toContain("domain: 'sports' is not one of: weather, finance");
  });

  it.each([
    ['without =', ['--data', 'novalue'], "--data needs KEY=VALUE, got 'novalue'"],
    ['twice', ['--data', 'replicas=1', '--data', 'replicas=2'], '--data replicas is given twice'],
    ['for actor_name', ['--data', 'actor_name=x'], 'actor_name is the first argument'],
  ])('refuses --data %s', async (_what, extra, message) => {
    const result = await run(['new', 'weather', 'out', '--local', template, '--defaults', ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('with --defaults, lists every missing required answer in one error', async () => {
    const required = localTemplate(folder.dir, {
      'template.yml':
        'actor_name: {type: str}\nowner: {type: str}\nregion: {type: str, default: eu}\nbudget: {type: int}\n',
    });
    const result = await run(['new', 'weather', 'out', '--local', required, '--defaults']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: these questions need a value: owner (no default), budget (no default); pass --data owner=VALUE --data budget=VALUE\n',
    );
    expect(result.left).toEqual([]);
  });

  it('does not offer a computed default that does not validate, and names only the questions that need a value', async () => {
    const computed = localTemplate(folder.dir, {
      'template.yml': [
        'actor_name: {type: str}',
        'slug: {default: "{{ actor_name }}", validator: {regex: "^[a-z][a-z0-9]+$", message: two or more letters}}',
        'region: {default: eu}',
        'label: {default: "{{ slug }} actor"}',
      ].join('\n'),
    });
    const withDefaults = await run(['new', 'j', 'out', '--local', computed, '--defaults']);
    expect(withDefaults.code).toBe(2);
    expect(withDefaults.stderr).toBe(
      "error: this question needs a value: slug (the default 'j' is not valid: two or more letters); pass --data slug=VALUE; " +
        'label depends on that answer and will be settled then\n',
    );
    const withoutDefaults = await run(['new', 'j', 'out', '--local', computed]);
    expect(withoutDefaults.code).toBe(2);
    expect(withoutDefaults.stderr).toContain(
      'no terminal to ask in: pass --defaults to accept the defaults of region (or answer them with --data KEY=VALUE)',
    );
    expect(withoutDefaults.stderr).toContain(
      "this question needs a value: slug (the default 'j' is not valid: two or more letters); pass --data slug=VALUE",
    );
    expect((await run(['new', 'j', 'out', '--local', computed, '--defaults', '--data', 'slug=jay'])).code).toBe(0);
  });

  it('without a terminal and without --defaults, asks nothing and names every unanswered question', async () => {
    const result = await run(['new', 'weather', 'out', '--local', template, '--data', 'domain=finance']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: no terminal to ask in: pass --defaults to accept the defaults of replicas, include_panel (or answer them with --data KEY=VALUE)\n',
    );
    expect(result.left).toEqual([]);
  });

  it('refuses a target folder that is not empty', async () => {
    const cwd = join(folder.dir, 'busy');
    mkdirSync(join(cwd, 'out'), { recursive: true });
    writeFileSync(join(cwd, 'out', 'keep.txt'), 'mine');
    const io = memoryIo({ cwd });
    expect(await runCli(['new', 'weather', 'out', '--local', template, '--defaults'], io)).toBe(2);
    expect(io.stderr()).toMatch(/out is not empty \(1 entries\)/);
    expect(readdirSync(join(cwd, 'out'))).toEqual(['keep.txt']);
  });

  // A file name cannot hold a slash, so the name is a variable whose value is "../escape".
  it('refuses a template whose file name renders to ../escape, writing nothing anywhere', async () => {
    const escaping = localTemplate(folder.dir, {
      'template.yml': 'actor_name: {type: str}\nfile_name: {type: str, default: "../escape"}\n',
      'a-first.txt': 'would be written before the bad name is reached\n',
      '{{ file_name }}': 'should never be written\n',
    });
    const result = await run(['new', 'weather', 'out', '--local', escaping, '--defaults']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: template path '{{ file_name }}' renders to '../escape', which is outside the target folder; nothing was written\n",
    );
    expect(result.left).toEqual([]);
    expect(existsSync(join(result.cwd, 'escape'))).toBe(false);
  });

  it.each([
    ['a folder name rendering to ../..', '{{ up }}/x.txt', '../..'],
    ['a file name rendering to an absolute path', '{{ up }}.njk', '/tmp/owned'],
    ['a nested name climbing out', 'inner/{{ up }}', '../../x'],
  ])('refuses %s', async (_what, path, value) => {
    const escaping = localTemplate(folder.dir, {
      'template.yml': 'actor_name: {type: str}\nup: {type: str}\n',
      [path]: 'x',
    });
    const result = await run([
      'new',
      'weather',
      'deep/out',
      '--local',
      escaping,
      '--defaults',
      '--data',
      `up=${value}`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`renders to '${value}', which is outside the target folder; nothing was written`);
    expect(result.left).toEqual([]);
  });

  it('fails (exit 1) on an undefined variable, naming it, and leaves no target behind', async () => {
    const broken = localTemplate(folder.dir, {
      'template.yml': 'actor_name: {type: str}\n',
      'ok.txt.njk': '{{ actor_name }}\n',
      'src/main.ts.njk': 'line one\nconst owner = "{{ team.owner }}";\n',
    });
    const result = await run(['new', 'weather', 'out', '--local', broken, '--defaults']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: file src/main.ts.njk: undefined variable 'team.owner' (line 2, column 16)\n");
    expect(result.left).toEqual([]);
  });

  it('fails (exit 1) on a template.yml mistake, naming the question', async () => {
    const broken = localTemplate(folder.dir, { 'template.yml': 'actor_name: {type: str}\nsize: {type: float}\n' });
    const result = await run(['new', 'weather', 'out', '--local', broken, '--defaults']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("question 'size' has type 'float'; use str, int, bool or choice");
  });

  it.each([
    ['a missing argument', ['new'], 'Missing required positional argument: ACTOR_NAME'],
    ['an extra argument', ['new', 'weather', 'out', 'extra'], "unexpected argument 'extra'"],
    ['an unknown option', ['new', 'weather', 'out', '--force'], 'unknown option --force'],
    ['an option without its value', ['new', 'weather', 'out', '--ref'], '--ref needs a value'],
    ['an unknown verb', ['deploy', 'x'], "unknown command 'deploy'"],
    ['no verb at all', [], 'USAGE'],
  ])('refuses %s as bad usage', async (_what, args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.left).toEqual([]);
  });

  it('prints the refusal as JSON with --json', async () => {
    const result = await run(['new', 'weather', 'out', '--local', template, '--json', '--data', 'actor_id=1']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'refused',
      code: 'actor_id_refused',
      message: expect.stringContaining('actor_id cannot be set'),
      warnings: [],
    });
  });
});
