import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { PLATFORM_RULES } from '../../src/config/validate/platform-rules.js';
import { ruleLabel } from '../../src/config/validate/rule-label.js';
import { loadPlatformConfigFixtures } from '../fixtures/platform-config/platform-config-fixtures.js';
import { ensureBuilt } from '../support/built-package.js';
import { writeInstalledActorFixture } from './support/actor-fixture.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());
let actor = '';
let configPath = '';
let emitted = '';

/** An actor with this checkout installed as its actorkit (`npm install` stands in for the link). */
beforeAll(async () => {
  ensureBuilt();
  actor = join(folder.dir, 'installed');
  configPath = writeInstalledActorFixture(actor);
  expect((await validate('--write')).code).toBe(0);
  emitted = readFileSync(configPath, 'utf8');
}, 120_000);

async function validate(...args: string[]) {
  const run = memoryIo({ cwd: folder.dir });
  const code = await runCli(['validate', actor, ...args], run);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

interface JsonResult {
  readonly status: string;
  readonly problems: { rule: string; pointer: string; message: string; in?: string }[];
  readonly emittedProblems: { rule: string; pointer: string }[];
  readonly fileProblems: { rule: string; pointer: string }[];
}

function handEdit(edit: (config: Record<string, any>) => void): void {
  const config = JSON.parse(emitted) as Record<string, any>;
  edit(config);
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
}

describe('actorkit validate checks the file on disk too', () => {
  it("uses the actor's own installed actorkit and finds the fresh file valid", async () => {
    writeFileSync(configPath, emitted);
    const result = await validate();
    expect(result.stdout).toContain("using the actor's own actorkit");
    expect(result.stdout).toMatch(/OK\n$/);
    expect(result.code).toBe(0);
  });

  it('reports the stale line and the rule problems of the hand-edited file, each with its rule and pointer (exit 1)', async () => {
    handEdit((config) => {
      config.deployment.replicas = { min: 3, max: 1 };
      config.settings.properties.greeting['x-platform-show-if'] = { field: 'nowhere', equals: true };
    });
    const result = await validate();
    expect(result.code).toBe(1);
    const bullets = result.stdout.split('\n').filter((line) => line.startsWith('- '));
    expect(bullets[0]).toMatch(/^- \[emitter\] \/: src\/platform\/config\.json is stale/);
    expect(bullets).toContainEqual(
      expect.stringMatching(
        /^- \[H deployment\] \/deployment\/replicas(\/min)?: .* \(in src\/platform\/config\.json\)$/,
      ),
    );
    expect(bullets).toContainEqual(
      expect.stringMatching(
        /^- \[E show-if\] \/settings\/properties\/greeting\/x-platform-show-if.*: .* \(in src\/platform\/config\.json\)$/,
      ),
    );
  });

  it('--json carries the problems of the emitted configuration and of the file on disk apart', async () => {
    handEdit((config) => {
      config.deployment.replicas = { min: 3, max: 1 };
    });
    const result = await validate('--json');
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as JsonResult;
    expect(json.emittedProblems).toEqual([]);
    expect(json.fileProblems).toContainEqual(expect.objectContaining({ rule: 'H' }));
    expect(json.problems).toContainEqual(expect.objectContaining({ rule: 'H', in: 'src/platform/config.json' }));
  });

  it('a file on disk that is not JSON is one schema problem of the file', async () => {
    writeFileSync(configPath, '{ "schema_version": ');
    const json = JSON.parse((await validate('--json')).stdout) as JsonResult;
    expect(json.fileProblems).toEqual([expect.objectContaining({ rule: 'schema', pointer: '' })]);
  });

  it('--write regenerates the file and then checks it: the hand edit is gone (exit 0)', async () => {
    handEdit((config) => {
      config.deployment.replicas = { min: 3, max: 1 };
    });
    const result = await validate('--write');
    expect(result.stdout).toMatch(/OK\n$/);
    expect(result.code).toBe(0);
    expect(readFileSync(configPath, 'utf8')).toBe(emitted);
  });

  // The corpus of test/fixtures/platform-config, each case written by hand over the file on disk.
  const failing = loadPlatformConfigFixtures().filter((fixture) => fixture.problems.length > 0);
  it('covers every registered rule in the fixture corpus', () => {
    const rules = new Set(failing.flatMap((fixture) => fixture.problems.map((problem) => problem.rule)));
    for (const { letter } of PLATFORM_RULES) expect(rules).toContain(letter);
  });

  it.each(failing.map((fixture) => [fixture.name, fixture] as const))(
    '%s: exit 1 and a bullet naming the rule and pointer',
    async (_name, fixture) => {
      writeFileSync(configPath, `${JSON.stringify(fixture.config, null, 2)}\n`);
      const result = await validate();
      expect(result.code).toBe(1);
      const bullets = result.stdout.split('\n').filter((line) => line.startsWith('- '));
      for (const problem of fixture.problems) {
        expect(bullets).toContainEqual(
          expect.stringContaining(`- [${ruleLabel(problem.rule)}] ${problem.pointer || '/'}: `),
        );
      }
    },
  );
});
