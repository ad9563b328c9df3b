import type { ActorProblem } from './actor-problem.js';
import type { ConfigTools } from './config-tools.js';
import { settingsDefaultProblems } from './settings-defaults.js';

/**
 * Every problem of one parsed configuration: the platform schema and the tuning rules (with the
 * validator of the actorkit in use), then the settings schema's own defaults.
 * @param json the parsed configuration.
 * @param tools the emitter and validator `validate` runs.
 */
export function configProblems(json: unknown, tools: Pick<ConfigTools, 'validatePlatformConfig'>): ActorProblem[] {
  try {
    return [...tools.validatePlatformConfig(json).problems, ...settingsDefaultProblems(json)];
  } catch (error) {
    return [
      { rule: 'emitter', pointer: '', message: `the configuration could not be checked: ${(error as Error).message}` },
    ];
  }
}
