/** This folder: its own package.json installs Node 24, Bun and Deno from npm. */
export declare const RUNTIMES_DIR: string;

/** One runtime installed from npm in this folder. */
export interface InstalledRuntime {
  readonly name: 'node24' | 'bun' | 'deno';
  /** The npm package that ships it. */
  readonly package: string;
  /** Absolute path of the binary. */
  readonly path: string;
  /** The version package.json pins. */
  readonly pinned: string;
}

/** The runtimes installed here: absolute binary path and the version package.json pins. */
export declare const INSTALLED_RUNTIMES: readonly InstalledRuntime[];

/** Runs `<binary> --version` and returns the bare version (`24.21.0`), or null when the binary does not run. */
export declare function runtimeVersion(path: string): string | null;
