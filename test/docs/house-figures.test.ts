import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';

interface Figures {
  readonly files: number;
  readonly lines: number;
  readonly filesOneJsonInvokeCrosses: number;
  readonly providerNamePlaces: Readonly<Record<string, number>>;
  readonly invokePathLiteralPlaces: number;
  readonly cliInternalImports: { readonly imports: number; readonly modules: number };
  readonly detail: { readonly crossed: readonly string[] };
}

/** `scripts/house-figures.ts` on this checkout, as docs/architecture.md ("The shape in figures") runs it. */
describe('scripts/house-figures.ts', () => {
  let figures: Figures;
  beforeAll(async () => {
    ensureBuilt();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(REPOSITORY_ROOT, 'scripts/house-figures.ts'), '--repo', REPOSITORY_ROOT],
      { cwd: REPOSITORY_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    figures = JSON.parse(stdout) as Figures;
  }, 90_000);

  it('measures the files one JSON invoke runs code in: the route, the turn, the store', () => {
    expect(figures.detail.crossed).toEqual(
      expect.arrayContaining([
        'src/features/invoke/invoke-route.ts',
        'src/invoke/run-turn.ts',
        'src/store/group-commit.ts',
        'src/adapter/node/index.ts',
      ]),
    );
    expect(figures.filesOneJsonInvokeCrosses).toBe(figures.detail.crossed.length);
  });

  it('counts what the layer check and the provider list hold: no import behind the entries, one place per provider name', () => {
    expect(figures.cliInternalImports).toEqual({ imports: 0, modules: 0 });
    expect(figures.providerNamePlaces['openai-compatible']).toBe(1);
    expect(figures.invokePathLiteralPlaces).toBeGreaterThan(0);
    expect(figures.lines).toBeGreaterThan(figures.files);
  });
});
