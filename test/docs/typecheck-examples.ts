import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DocExample } from './doc-examples.js';

/** The type errors of one example, each as `docs/x.md:<line>:<column>: TS2304: message`. */
export type ExampleTypeErrors = ReadonlyMap<DocExample, readonly string[]>;

/**
 * Type-checks TypeScript examples with one `tsc --noEmit` run: each block becomes an ES module
 * (`.mts`, so top-level `await` is fine) in a scratch folder under `<root>/.actorkit/`, whose
 * tsconfig extends the repository's, so `actorkit`, `actorkit/sdk`, … resolve to this checkout's
 * source and the same strict settings apply. Errors are mapped back to the markdown line.
 * @param root the repository root.
 * @param examples the `ts` blocks.
 */
export function typecheckExamples(root: string, examples: readonly DocExample[]): ExampleTypeErrors {
  mkdirSync(join(root, '.actorkit'), { recursive: true });
  const scratch = mkdtempSync(join(root, '.actorkit', 'docs-examples-'));
  try {
    const names = examples.map(
      (example, index) => `${example.file.replace(/[^A-Za-z0-9]+/g, '-')}-${example.line}-${index}.mts`,
    );
    examples.forEach((example, index) => writeFileSync(join(scratch, names[index]!), example.code));
    const base = relative(scratch, join(root, 'tsconfig.json'));
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ extends: base, compilerOptions: { noEmit: true }, include: ['*.mts'] }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', scratch, '--pretty', 'false'],
      {
        encoding: 'utf8',
      },
    );
    const errors = new Map<DocExample, string[]>(examples.map((example) => [example, []]));
    for (const line of `${tsc.stdout}${tsc.stderr}`.split('\n')) {
      const diagnostic = /^(?:.*[\\/])?([^\\/(]+\.mts)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
      if (diagnostic === null) {
        if (/error TS\d+/.test(line)) throw new Error(`tsc failed outside the examples: ${line}`);
        continue;
      }
      const example = examples[names.indexOf(diagnostic[1]!)];
      if (example === undefined) throw new Error(`tsc reported an unknown file: ${line}`);
      errors
        .get(example)!
        .push(
          `${example.file}:${example.line + Number(diagnostic[2])}:${diagnostic[3]}: ${diagnostic[4]}: ${diagnostic[5]}`,
        );
    }
    if (tsc.status !== 0 && [...errors.values()].every((list) => list.length === 0)) {
      throw new Error(`tsc exited ${tsc.status} without a diagnostic: ${tsc.stdout}${tsc.stderr}`);
    }
    return errors;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
