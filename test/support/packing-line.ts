/**
 * The line `actorkit new` and `update` write to standard error when packing actorkit into an
 * actor's vendor/ takes over a second: the first run from a checkout whose packed tarball is not
 * cached yet (cli/render/pack-actorkit.ts). Whether a test meets it depends on what ran before.
 */
const PACKING_LINE = /^packing actorkit from .+ \(npm pack\)(; kept in .+ for the next run)?\n/gm;

/**
 * `stderr` without the line that says actorkit is being packed, for tests that expect a render to
 * say nothing else.
 * @param stderr what a run wrote to standard error.
 */
export function withoutPackingLine(stderr: string): string {
  return stderr.replace(PACKING_LINE, '');
}
