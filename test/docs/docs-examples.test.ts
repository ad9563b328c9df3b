import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { docExamples, documentedFiles, exampleName, type DocExample } from './doc-examples.js';
import { openShellSandbox, type ShellSandbox } from './shell-sandbox.js';
import { typecheckExamples, type ExampleTypeErrors } from './typecheck-examples.js';

/**
 * Every fenced block of README.md and docs/*.md is covered by its language: `ts` is type-checked
 * against this checkout, `sh` is run (see shell-sandbox.ts), `json` and `yaml` are parsed, `text`
 * is shown output and only read. A block in any other language, or without one, fails, as does a
 * block exempted by `<!-- docs-test: skip reason="…" -->` without a reason; the skips are listed.
 */
const COVERAGE: Readonly<Record<string, 'typecheck' | 'run' | 'json' | 'yaml' | 'text'>> = {
  ts: 'typecheck',
  typescript: 'typecheck',
  sh: 'run',
  bash: 'run',
  shell: 'run',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  text: 'text',
};

const examples = documentedFiles(REPOSITORY_ROOT).flatMap((file) => docExamples(REPOSITORY_ROOT, file));
const skipped = examples.filter((example) => example.directive?.kind === 'skip');
const checked = examples.filter((example) => example.directive?.kind !== 'skip');
const byCoverage = (kind: string) => checked.filter((example) => COVERAGE[example.lang] === kind);

describe('the examples of README.md and docs/*.md', () => {
  it('are each covered: a known language, or an explicit skip with its reason (listed here)', () => {
    const uncovered = checked
      .filter((example) => COVERAGE[example.lang] === undefined)
      .map(
        (example) =>
          `${exampleName(example)}: no test covers this language; use ts, sh, json, yaml or text (shown output), or put <!-- docs-test: skip reason="…" --> right before it`,
      );
    expect(uncovered).toEqual([]);
    console.info(
      `docs examples: ${examples.length} blocks, ${skipped.length} skipped:\n${skipped.map((example) => `  ${exampleName(example)}: ${(example.directive as { reason: string }).reason}`).join('\n')}`,
    );
    expect(examples.length).toBeGreaterThan(0);
  });

  describe('TypeScript blocks type-check against this package', () => {
    let errors: ExampleTypeErrors;
    beforeAll(() => {
      errors = typecheckExamples(REPOSITORY_ROOT, byCoverage('typecheck'));
    }, 120_000);

    it.each(byCoverage('typecheck').map((example) => [exampleName(example), example] as const))(
      '%s',
      (_name, example) => {
        expect(errors.get(example)).toEqual([]);
      },
    );
  });

  describe('JSON and YAML blocks parse', () => {
    it.each(
      checked
        .filter((example) => ['json', 'yaml'].includes(COVERAGE[example.lang] ?? ''))
        .map((example) => [exampleName(example), example] as const),
    )('%s', (name, example) => {
      const parse =
        COVERAGE[example.lang] === 'json' ? (text: string) => JSON.parse(text) : (text: string) => parseYaml(text);
      expect(() => parse(example.code), name).not.toThrow();
    });
  });

  describe('shell blocks run against the built CLI and a running example actor', () => {
    let sandbox: ShellSandbox;
    beforeAll(async () => {
      ensureBuilt();
      expect(existsSync(join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js')), 'dist/cli/main.js after the build').toBe(
        true,
      );
      sandbox = await openShellSandbox();
    }, 120_000);
    afterAll(() => sandbox?.close());

    it.each(byCoverage('run').map((example) => [exampleName(example), example] as const))(
      '%s',
      async (name, example: DocExample) => {
        const result = await sandbox.run(example.code);
        expect(
          result.code,
          `${name} exited with ${result.code}:\n${example.code}\n--- output ---\n${result.output}`,
        ).toBe(0);
        if (example.directive?.kind === 'expect')
          expect(result.output, `${name}: output`).toContain(example.directive.text);
      },
      90_000,
    );
  });
});

describe("docs/agent.md's command that adds tracing to an actor", () => {
  it("installs exactly actorkit's @opentelemetry peerDependencies, at their ranges", () => {
    const [install] = examples.filter(
      (example) => example.file === 'docs/agent.md' && /^npm install @opentelemetry\//.test(example.code),
    );
    const installed = (install?.code ?? '').match(/@opentelemetry\/[^\s@]+@\S+/g) ?? [];
    const { peerDependencies } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    const peers = Object.entries(peerDependencies)
      .filter(([name]) => name.startsWith('@opentelemetry/'))
      .map(([name, range]) => `${name}@${range}`);
    expect(peers).toHaveLength(7);
    expect([...installed].sort()).toEqual(peers.sort());
  });
});
