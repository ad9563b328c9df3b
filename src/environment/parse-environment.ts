import * as v from 'valibot';
import { EnvironmentConfig, type ActorEnvironment } from './environment-schema.js';
import { StartupRefusal } from './startup-refusal.js';

const parsedEnvironments = new WeakSet<EnvironmentConfig>();

/**
 * Parses the environment into the typed `EnvironmentConfig`, defaults applied. A bad value
 * throws a `StartupRefusal` whose one line names every bad variable (never a secret's value).
 * @param env the raw environment, e.g. `process.env`
 * @example
 * const environment = parseEnvironment({ PORT: '3000', API_KEY_ENABLED: 'yes', API_KEY: 'k1,k2' });
 * environment.PORT; // 3000
 */
export function parseEnvironment(env: ActorEnvironment): EnvironmentConfig {
  const result = v.safeParse(EnvironmentConfig, env);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(environment)'} ${issue.message}`);
    throw new StartupRefusal(v.getDotPath(result.issues[0]) ?? 'environment', problems.join('; '));
  }
  const environment = Object.freeze(result.output);
  parsedEnvironments.add(environment);
  return environment;
}

/**
 * The typed environment of `source`: itself when `parseEnvironment` made it, else its parse.
 * Lets functions that take the typed environment still accept a raw one (tests, direct callers).
 */
export function environmentOf(source: ActorEnvironment | EnvironmentConfig): EnvironmentConfig {
  return parsedEnvironments.has(source as EnvironmentConfig) ? (source as EnvironmentConfig) : parseEnvironment(source as ActorEnvironment);
}
