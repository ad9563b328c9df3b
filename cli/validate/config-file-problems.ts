import { readFile } from 'node:fs/promises';
import type { ActorProblem } from './actor-problem.js';
import type { ConfigTools } from './config-tools.js';
import { configProblems } from './config-problems.js';

/**
 * The problems of `src/platform/config.json` as it is on disk — the file the platform reads —
 * whatever the code emits: not JSON is one `schema` problem at the root; otherwise the platform
 * schema, the tuning rules and the settings' defaults. A missing file has none here (the emitter step
 * reports it).
 * @param configPath the absolute path of the file.
 * @param tools the validator of the actorkit in use.
 */
export async function configFileProblems(
  configPath: string,
  tools: Pick<ConfigTools, 'validatePlatformConfig'>,
): Promise<ActorProblem[]> {
  const text = await readFile(configPath, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return [{ rule: 'schema', pointer: '', message: `the file is not valid JSON: ${(error as Error).message}` }];
  }
  return configProblems(json, tools);
}
