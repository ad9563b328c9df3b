import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of the actorkit package.json the CLI reads. */
export interface OwnPackage {
  readonly root: string;
  readonly version: string;
}

let cached: OwnPackage | undefined;

/**
 * Finds the actorkit package this CLI belongs to by walking up from this file, so it works both
 * from the sources (`cli/`) and from the build (`dist/cli/`).
 */
export function ownPackage(): OwnPackage {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (json.name === 'actorkit') return (cached = { root: dir, version: json.version ?? '0.0.0' });
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`cannot find the actorkit package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
