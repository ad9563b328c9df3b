import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownPackage } from '../../cli/package-root.js';
import { runCli } from '../../cli/run-cli.js';
import { installFakeActorkit, writeActorFixture } from './support/actor-fixture.js';
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
    expect(first.stdout).toBe(`${ownLine}wrote ${configPath}\n${configPath} is valid: platform schema v1 and rules A–H\nOK\n`);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toMatchObject({ schema_version: '1.0' });
    const second = await validate(actor);
    expect(second.stdout).toBe(`${ownLine}${configPath} is valid: platform schema v1 and rules A–H\nOK\n`);
    expect(second.code).toBe(0);
  });

  it('flags a stale or missing config.json (exit 1) without writing it', async () => {
    const actor = newActorDir();
    const configPath = join(actor, 'src', 'platform', 'config.json');
    const missing = await validate(actor);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`${configPath} is not valid: 1 problem\n`);
    expect(missing.stdout).toContain(`- [emitter] /: src/platform/config.json is missing (hint: regenerate it with \`actorkit validate --write ${actor}\`)`);
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
    expect(bullets[0]).toMatch(/^- \[A\] \/settings\/properties\/greeting\/x-platform-section: .*'nowhere'/);
    expect(result.stdout).toContain('is not valid: 1 problem\n');
  });

  it('turns an emitter failure into one bullet that hints npm install in the actor folder (exit 1)', async () => {
    const actor = newActorDir({ actorSource: "import { platformField } from 'actorkit/sdk';\nexport default platformField;\n" });
    const result = await validate(`actor-${counter}`);
    expect(result.code).toBe(1);
    const bullets = result.stdout.split('\n').filter((line) => line.startsWith('- '));
    expect(bullets).toHaveLength(1);
    expect(bullets[0]).toMatch(/^- \[emitter\] \/: the configuration emitter failed: .*actor\.ts.* \(hint: run `npm install` in actor-\d+\)$/);
    expect(actor).toContain(`actor-${counter}`);
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
    expect(result.stdout).toMatch(/- \[emitter\] \/: actorkit 9\.9\.9 installed at .* exports no emitPlatformConfig\/validatePlatformConfig; update it \(hint: run `npm install` in /);
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
      actorkit: { origin: 'cli', version: ownPackage().version, root: ownPackage().root },
      configState: 'missing',
      problems: [],
    });
  });

  it('refuses (exit 2) a folder that is not an actor', async () => {
    const actor = newActorDir();
    rmSync(join(actor, 'package.json'));
    const result = await validate(actor);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: ${actor} is not an actor folder (no package.json)\n`);
  });
});
