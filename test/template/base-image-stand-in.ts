import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The users the `node:*-bookworm-slim` base image has besides root: `node`, uid and gid 1000. */
const BASE_IMAGE_USERS = ['node', 'node:node', '1000', '1000:1000'] as const;

/**
 * Writes `<dir>/bin/chown`, the one command the host cannot stand in for the base image with:
 * the image has the user `node`, the host need not. The stand-in fails as chown would for a user
 * the image lacks or a path that does not exist, and otherwise changes nothing (ownership is not
 * replayed). Returns the folder to put first on `PATH` of the replayed `RUN` lines.
 * @param dir a scratch folder
 */
export function writeBaseImageStandIn(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const users = BASE_IMAGE_USERS.join('|');
  writeFileSync(
    join(bin, 'chown'),
    `#!/bin/sh
while [ "\${1#-}" != "$1" ]; do shift; done
case "$1" in ${users}) ;; *) echo "chown: invalid user: '$1' (the base image has only root and node)" >&2; exit 1 ;; esac
shift
for path in "$@"; do
  [ -e "$path" ] || { echo "chown: cannot access '$path': No such file or directory" >&2; exit 1; }
done
`,
  );
  chmodSync(join(bin, 'chown'), 0o755);
  return bin;
}
