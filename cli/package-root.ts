import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of the actorkit package.json the CLI reads. */
export interface OwnPackage {
  readonly root: string;
  readonly version: string;
  /** The `peerDependencies` ranges (the optional integrations an actor may add: OpenTelemetry, MCP, A2A…). */
  readonly peerDependencies: Readonly<Record<string, string>>;
  /** `actorkit.templateRepository`: the template repository `new` renders by default; absent: the bundled template. */
  readonly templateRepository?: string;
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
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as PackageManifest;
      if (json.name === 'actorkit') return (cached = ownPackageAt(dir, json));
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`cannot find the actorkit package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

interface PackageManifest {
  readonly name?: string;
  readonly version?: string;
  readonly peerDependencies?: Record<string, string>;
  readonly actorkit?: { readonly templateRepository?: unknown };
}

/**
 * The facts the CLI reads from the actorkit package in `root` (this one, or an older one `update`
 * fetched to render the template an actor was made with).
 * @param root the folder holding actorkit's package.json.
 */
export function actorkitPackageAt(root: string): OwnPackage {
  return ownPackageAt(root, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageManifest);
}

function ownPackageAt(root: string, json: PackageManifest): OwnPackage {
  const templateRepository = json.actorkit?.templateRepository;
  return {
    root,
    version: json.version ?? '0.0.0',
    peerDependencies: json.peerDependencies ?? {},
    ...(typeof templateRepository === 'string' && templateRepository.trim() !== ''
      ? { templateRepository: templateRepository.trim() }
      : {}),
  };
}
