import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The user the official `node` images define, with the uid and gid they give it (1000:1000). */
const NAMED_USERS: Readonly<Record<string, number>> = { node: 1000 };

/** What the runtime stage of an actor's Dockerfile says about how its container may be locked down. */
export interface ImageRuntime {
  /** The numeric uid of the stage's `USER`, when it is not root and known; `undefined` otherwise. */
  readonly uid: number | undefined;
  /** The stage's `DATA_DIR` (the only folder the actor writes), when it sets one as an absolute path. */
  readonly dataDir: string | undefined;
  /** Why the container cannot run as non-root with a read-only root file system, when it cannot. */
  readonly reasons: readonly string[];
}

/**
 * Reads the runtime stage (the last `FROM`) of `<actorDir>/Dockerfile`: its `USER` — a number, or
 * `node`, the official Node images' uid 1000 — and its `DATA_DIR`. With both, the manifests run the
 * container as that uid with a read-only root file system and a volume at `DATA_DIR`; without them
 * (root, an unknown name, no `DATA_DIR`, no Dockerfile) the reasons say what is missing.
 * @param actorDir the actor folder.
 */
export async function readImageRuntime(actorDir: string): Promise<ImageRuntime> {
  const text = await readFile(join(actorDir, 'Dockerfile'), 'utf8').catch(() => undefined);
  if (text === undefined)
    return {
      uid: undefined,
      dataDir: undefined,
      reasons: ['the actor has no Dockerfile to read its user and DATA_DIR from'],
    };
  const stage = runtimeStage(text);
  const user = lastMatch(stage, /^USER\s+([^\s:]+)/i);
  const dataDir = lastMatch(stage, /^(?:ENV|ARG)\s.*?\bDATA_DIR[=\s]\s*"?([^\s"]+)/i);
  const uid = user === undefined ? undefined : /^\d+$/.test(user) ? Number(user) : NAMED_USERS[user];
  const reasons = [
    ...(user === undefined ? ['its runtime stage sets no USER (the container would run as root)'] : []),
    ...(user !== undefined && uid === undefined
      ? [`its USER '${user}' is not a number, so Kubernetes cannot check that it is not root`]
      : []),
    ...(uid === 0 ? ['its USER is root'] : []),
    ...(dataDir?.startsWith('/')
      ? []
      : ['its runtime stage sets no absolute DATA_DIR, the one folder the actor writes']),
  ];
  return { uid: uid === 0 ? undefined : uid, dataDir: dataDir?.startsWith('/') ? dataDir : undefined, reasons };
}

/** The instructions of the last stage, one per line, continuation lines joined and comments dropped. */
function runtimeStage(text: string): string[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const from = lines.findLastIndex((line) => /^FROM\s/i.test(line));
  return lines.slice(from + 1);
}

function lastMatch(lines: readonly string[], pattern: RegExp): string | undefined {
  return lines.flatMap((line) => pattern.exec(line)?.[1] ?? []).at(-1);
}
