import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../../cli/run-cli.js';
import { memoryIo } from './memory-io.js';

/**
 * Runs `actorkit <args>` without a terminal in a fresh working folder below `parent`, and lists
 * what it left in that folder.
 */
export async function runInFreshFolder(parent: string, args: string[]) {
  const cwd = join(parent, `run-${Math.random().toString(36).slice(2)}`);
  mkdirSync(cwd);
  const io = memoryIo({ cwd });
  const code = await runCli(args, io);
  return { code, cwd, stdout: io.stdout(), stderr: io.stderr(), left: readdirSync(cwd) };
}
