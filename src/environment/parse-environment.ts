import * as v from 'valibot';
import { EnvironmentConfig, type ActorEnvironment } from './environment-schema.js';
import { StartupRefusal } from './startup-refusal.js';

const parsedEnvironments = new WeakSet<EnvironmentConfig>();

/**
 * Parses the environment into the typed `EnvironmentConfig`, defaults applied. A bad value
 * throws a `StartupRefusal` whose one line names every bad variable (never a secret's value);
 * a variable that feeds a setting of the actor (`LLM_BASE_URL` → `llm_base_url`) is named as
 * that setting, with the variable as the source of its value.
 * @param env the raw environment, e.g. `process.env`
 * @param options `settingKeys`: the keys of the actor's settings
 * @example
 * const environment = parseEnvironment({ PORT: '3000', API_KEY_ENABLED: 'yes', API_KEY: 'k1,k2' });
 * environment.PORT; // 3000
 */
export function parseEnvironment(
  env: ActorEnvironment,
  options: { settingKeys?: readonly string[] } = {},
): EnvironmentConfig {
  const result = v.safeParse(EnvironmentConfig, env);
  if (!result.success) {
    const culprit = (issue: v.BaseIssue<unknown>) => {
      const name = v.getDotPath(issue) ?? 'environment';
      return options.settingKeys?.includes(name.toLowerCase())
        ? { name: name.toLowerCase(), shown: `setting ${name.toLowerCase()} (from the environment variable ${name})` }
        : { name, shown: name };
    };
    const problems = result.issues.map((issue) => `${culprit(issue).shown} ${issue.message}`);
    throw new StartupRefusal(culprit(result.issues[0]).name, problems.join('; '));
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
  return parsedEnvironments.has(source as EnvironmentConfig)
    ? (source as EnvironmentConfig)
    : parseEnvironment(source as ActorEnvironment);
}
