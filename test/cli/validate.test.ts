import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownPackage } from '../../cli/package-root.js';
import { runCli } from '../../cli/run-cli.js';
import { CONFIGURATION_CHECKS } from '../../cli/validate/configuration-checks.js';
import {
  actorWithSettings,
  brokenActorSource,
  installFakeActorkit,
  writeActorFixture,
} from './support/actor-fixture.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());
let counter = 0;

function newActorDir(options: Parameters<typeof writeActorFixture>[1] = {}): string {
  return writeActorFixture(join(folder.dir, `actor-${++counter}`), options);
}

async function validate(...args: string[]) {
  const run = memoryIo({ cwd: folder.dir });
  const code = await runCli(['validate', ...args], run);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

const ownLine = `using the CLI's own (none installed for the actor) actorkit ${ownPackage().version} at ${ownPackage().root}\n`;

describe('actorkit validate', () => {
  it('with --write emits src/platform/config.json, then a plain run prints the validity line and OK (exit 0)', async () => {
    const actor = newActorDir();
    const configPath = join(actor, 'src', 'platform', 'config.json');
    const first = await validate(actor, '--write');
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`${ownLine}wrote ${configPath}\n${configPath} is valid: ${CONFIGURATION_CHECKS}\nOK\n`);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toMatchObject({ schema_version: '1.0' });
    const second = await validate(actor);
    expect(second.stdout).toBe(`${ownLine}${configPath} is valid: ${CONFIGURATION_CHECKS}\nOK\n`);
    expect(second.code).toBe(0);
  });

  it('flags a stale or missing config.json (exit 1) without writing it', async () => {
    const actor = newActorDir();
    const configPath = join(actor, 'src', 'platform', 'config.json');
    const missing = await validate(actor);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`${configPath} is not valid: 1 problem\n`);
    expect(missing.stdout).toContain(
      `- [emitter] /: src/platform/config.json is missing (hint: regenerate it with \`actorkit validate --write ${actor}\`)`,
    );
    await validate(actor, '--write');
    const text = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, text.replace('"Weather"', '"Hand edited"'));
    const stale = await validate(actor);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(
      /^- \[emitter\] \/: src\/platform\/config.json is stale, it differs from what the code emits: line \d+ should be `"name": "Weather",`, is `"name": "Hand edited",` \(hint: regenerate it with `actorkit validate --write .*`\)$/m,
    );
    expect(readFileSync(configPath, 'utf8')).toContain('Hand edited');
  });

  it('prints one bullet per rule problem with its rule letter and pointer (exit 1)', async () => {
    const actor = newActorDir({ greetingSection: 'nowhere' });
    const result = await validate(actor, '--write');
    expect(result.code).toBe(1);
    const bullets = result.stdout.split('\n').filter((line) => line.startsWith('- '));
    expect(bullets).toHaveLength(1);
    expect(bullets[0]).toMatch(/^- \[A sections\] \/settings\/properties\/greeting\/x-platform-section: .*'nowhere'/);
    expect(result.stdout).toContain('is not valid: 1 problem\n');
  });

  it("prefers the actor's own installed actorkit, says so, and runs its emitter in check mode", async () => {
    const actor = newActorDir();
    const installed = installFakeActorkit(actor);
    const result = await validate(actor);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`using the actor's own actorkit 9.9.9 at ${installed}\n`);
    expect(result.stdout).toContain(`- [schema] /: fake validator saw {"emitted_with":{"check":true}}\n`);
  });

  it('reports an installed actorkit without the emitter as an emitter problem with the npm install hint', async () => {
    const actor = newActorDir();
    installFakeActorkit(actor, 'export const old = true;\n');
    const result = await validate(actor);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /- \[emitter\] \/: actorkit 9\.9\.9 installed at .* exports no emitPlatformConfig\/validatePlatformConfig; update it \(hint: run `npm install` in /,
    );
  });

  it('prints the result as JSON with --json', async () => {
    const actor = newActorDir();
    const result = await validate(actor, '--json', '--write');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'ok',
      actorDir: actor,
      configPath: join(actor, 'src', 'platform', 'config.json'),
      written: true,
      routesWritten: false,
      actorkit: { origin: 'cli', version: ownPackage().version, root: ownPackage().root },
      configState: 'missing',
      problems: [],
      emittedProblems: [],
      fileProblems: [],
    });
  });

  it('checks the current folder when no actor_dir is given, and its --help says so with an example', async () => {
    const actor = newActorDir();
    const inActor = memoryIo({ cwd: actor });
    expect(await runCli(['validate', '--write'], inActor)).toBe(0);
    expect(inActor.stdout()).toContain(`${join(actor, 'src', 'platform', 'config.json')} is valid`);
    const help = await validate('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/USAGE actorkit validate \[OPTIONS\] \[ACTOR_DIR\]/);
    expect(help.stdout).toMatch(/ACTOR_DIR +The actor folder to check \(Default: \.\)/);
    expect(help.stdout).toMatch(/\nExample:\n\n {2}\$ actorkit validate \.\/weather\n\n$/);
  });

  it('refuses (exit 2) a folder that is not an actor', async () => {
    const actor = newActorDir();
    rmSync(join(actor, 'package.json'));
    const result = await validate(actor);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: ${actor} is not an actor folder (no package.json)\n`);
  });
});

describe('actorkit validate: hints point at the real cause', () => {
  function bulletsOf(stdout: string): string[] {
    return stdout.split('\n').filter((line) => line.startsWith('- '));
  }

  /** The 1-based line of `src/actor.ts` holding `marker`. */
  function lineOf(source: string, marker: string): number {
    const index = source.split('\n').findIndex((line) => line.includes(marker));
    expect(index, `marker ${marker} in the fixture`).toBeGreaterThanOrEqual(0);
    return index + 1;
  }

  it.each([
    [
      'a widget-name typo',
      'widget-typo',
      /^loading src\/actor\.ts failed at src\/actor\.ts:LINE:\d+: platformField\('behaviour'\): unknown widget "slect"; known: /,
    ],
    [
      'a platformField misuse',
      'platform-field-misuse',
      /^loading src\/actor\.ts failed at src\/actor\.ts:LINE:\d+: platformField\('behaviour'\): fedByConnector and creatorValue exclude each other/,
    ],
    [
      'a ReferenceError at import',
      'reference-error',
      /^loading src\/actor\.ts failed at src\/actor\.ts:LINE:\d+: ReferenceError: greetingDefault is not defined$/,
    ],
    ['a syntax error', 'syntax-error', /^loading src\/actor\.ts failed at src\/actor\.ts:LINE:\d+: syntax error: /],
    [
      'a missing named export',
      'missing-export',
      /^loading src\/actor\.ts failed at src\/actor\.ts:LINE: SyntaxError: The requested module 'valibot' does not provide an export named 'strng'$/,
    ],
  ] as const)(
    '%s: the file and line in the actor source, no npm install hint (exit 1)',
    async (_name, kind, expected) => {
      const source = brokenActorSource(kind);
      const actor = newActorDir({ actorSource: source });
      const result = await validate(actor, '--json');
      expect(result.code).toBe(1);
      const [problem, ...others] = (JSON.parse(result.stdout) as { problems: Record<string, string>[] }).problems;
      expect(others).toEqual([]);
      const line = lineOf(source, 'FAILS HERE');
      expect(problem).toMatchObject({
        rule: 'emitter',
        pointer: '',
        location: expect.stringMatching(new RegExp(`^src/actor\\.ts:${line}(:\\d+)?$`)),
      });
      expect(problem!.message).toMatch(new RegExp(expected.source.replace('LINE', String(line))));
      expect(problem!.hint).toBeUndefined();
      const text = await validate(actor);
      expect(bulletsOf(text.stdout)).toEqual([`- [emitter] /: ${problem!.message}`]);
      expect(text.stdout).not.toContain('npm install');
    },
  );

  it('a missing package: the npm install hint naming the package, in the folder as the user named it (exit 1)', async () => {
    const actor = newActorDir({
      actorSource: brokenActorSource('missing-package'),
      packageJson: { dependencies: { 'weather-codes': '^1.0.0' } },
    });
    const result = await validate(`actor-${counter}`);
    expect(result.code).toBe(1);
    expect(bulletsOf(result.stdout)).toEqual([
      `- [emitter] /: package 'weather-codes' is not installed (imported from src/actor.ts) (hint: run \`npm install\` in actor-${counter})`,
    ]);
    expect(actor).toContain(`actor-${counter}`);
  });

  it('a package that is not even a dependency: the hint installs it by name', async () => {
    const actor = newActorDir({ actorSource: brokenActorSource('missing-package') });
    const result = await validate(actor);
    expect(bulletsOf(result.stdout)).toEqual([
      `- [emitter] /: package 'weather-codes' is not installed (imported from src/actor.ts) (hint: it is not in package.json: run \`npm install weather-codes\` in actor-${counter})`,
    ]);
  });

  it('a missing relative file is not a missing package: no npm install hint', async () => {
    const actor = newActorDir({ actorSource: brokenActorSource('missing-file') });
    const result = await validate(actor);
    const bullets = bulletsOf(result.stdout);
    expect(bullets).toHaveLength(1);
    expect(bullets[0]).toMatch(
      /^- \[emitter\] \/: the configuration emitter failed: cannot load src\/actor\.ts: Cannot find module '.*src\/forecast\.js' imported from src\/actor\.ts$/,
    );
    expect(result.stdout).not.toContain('npm install');
  });

  it('an error thrown by a module the actor imports points at that module', async () => {
    const actor = newActorDir({ actorSource: "import { greeting } from './greeting.js';\nexport default greeting;\n" });
    writeFileSync(
      join(actor, 'src', 'greeting.ts'),
      "// the greeting\nexport const greeting = { metadata: {} };\nthrow new TypeError('no greeting today');\n",
    );
    const result = await validate(actor);
    expect(bulletsOf(result.stdout)).toEqual([
      '- [emitter] /: loading src/actor.ts failed at src/greeting.ts:3:7: TypeError: no greeting today',
    ]);
  });

  it('a default export that is not a definition says what is missing, without a hint', async () => {
    const actor = newActorDir({ actorSource: 'export default { metadata: {} };\n' });
    const result = await validate(actor);
    expect(bulletsOf(result.stdout)).toEqual([
      '- [emitter] /: the configuration emitter failed: src/actor.ts must export an ActorDefinition as its default export (missing: features, settings, sections)',
    ]);
  });
});

describe('actorkit validate: the settings schema checks its own defaults', () => {
  it("reports each default its field rejects as [schema default] at the default's pointer (exit 1)", async () => {
    const actor = newActorDir({
      actorSource: actorWithSettings(`{
    llm_base_url: v.optional(v.pipe(v.string(), v.url(), v.metadata(field(1))), 'not a url'),
    tone: v.optional(v.pipe(v.picklist(['warm', 'dry']), v.metadata(field(2))), 'loud'),
    history_limit: v.optional(v.pipe(v.number(), v.maxValue(200), v.metadata(field(3))), 500),
    greeting: v.optional(v.pipe(v.string(), v.metadata(field(4))), 'Hello'),
  }`),
    });
    const result = await validate(actor, '--write');
    expect(result.code).toBe(1);
    const bullets = result.stdout.split('\n').filter((line) => line.startsWith('- '));
    expect(bullets).toEqual([
      `- [schema default] /settings/properties/llm_base_url/default: the default "not a url" does not fit the field's own schema: 'llm_base_url': String does not match format "uri"`,
      `- [schema default] /settings/properties/tone/default: the default "loud" does not fit the field's own schema: 'tone' must be one of "warm", "dry" (got "loud")`,
      `- [schema default] /settings/properties/history_limit/default: the default 500 does not fit the field's own schema: 'history_limit' must be <= 200 (got 500)`,
    ]);
    expect(result.stdout).toContain('is not valid: 3 problems\n');
  });

  it('accepts defaults that fit', async () => {
    const actor = newActorDir({
      actorSource: actorWithSettings(`{
    llm_base_url: v.optional(v.pipe(v.string(), v.url(), v.metadata(field(1))), 'https://api.example.com/v1'),
    tone: v.optional(v.pipe(v.picklist(['warm', 'dry']), v.metadata(field(2))), 'dry'),
  }`),
    });
    const result = await validate(actor, '--write');
    expect(result.stdout).toContain('OK\n');
    expect(result.code).toBe(0);
  });
});

describe('actorkit validate: what the code declares that the emitted file cannot show', () => {
  function bulletsOf(stdout: string): string[] {
    return stdout.split('\n').filter((line) => line.startsWith('- '));
  }

  it('a secret field with a default in code is rule H at the pointer of that default, without the secret (exit 1)', async () => {
    const actor = newActorDir({
      actorSource: actorWithSettings(`{
    api_key: v.optional(v.pipe(v.string(), v.metadata({ ...field(1), 'x-platform-widget': 'password', writeOnly: true })), 'sk-test-123'),
  }`),
    });
    const result = await validate(actor, '--write');
    expect(result.code).toBe(1);
    expect(bulletsOf(result.stdout)).toEqual([
      expect.stringMatching(
        /^- \[H deployment\] \/settings\/properties\/api_key\/default: secret setting 'api_key' has a default in the code/,
      ),
    ]);
    expect(result.stdout).not.toContain('sk-test-123');
  });

  it.each([
    [
      'a duplicate section id',
      `[{ id: 'behaviour', title: 'Behaviour' }, { id: 'behaviour', title: 'Again' }]`,
      '/sections/5',
      /section 'behaviour' is declared twice/,
    ],
    [
      'a section id the template owns',
      `[{ id: 'behaviour', title: 'Behaviour' }, { id: 'model', title: 'Mine' }]`,
      '/sections/5',
      /section 'model' is already declared by the template/,
    ],
  ])('%s is rule A at its pointer, not dropped silently (exit 1)', async (_what, sections, pointer, message) => {
    const source = actorWithSettings(
      `{ greeting: v.optional(v.pipe(v.string(), v.metadata(field(1))), 'Hello') }`,
    ).replace("sections: [{ id: 'behaviour', title: 'Behaviour', order: 10 }]", `sections: ${sections}`);
    const actor = newActorDir({ actorSource: source });
    const result = await validate(actor, '--write');
    expect(result.code).toBe(1);
    const bullets = bulletsOf(result.stdout);
    expect(bullets).toHaveLength(1);
    expect(bullets[0]).toMatch(new RegExp(`^- \\[A sections\\] ${pointer}: ${message.source}`));
  });
});
