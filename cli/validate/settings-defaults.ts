import { runInNewContext } from 'node:vm';
import type { Problem } from '../../src/index.js';
import { schemaProblems, settingFields } from '../../src/sdk/index.js';

/** A plain JSON object, or `undefined` for anything else. */
function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The rule of a problem found by {@link settingsDefaultProblems}. */
const SCHEMA_DEFAULT_RULE = 'schema default';

/**
 * How long checking all the defaults of one configuration may take, in milliseconds. A `pattern`
 * runs on JavaScript's backtracking engine, where a nested quantifier such as `(a+)+` takes time
 * exponential in the length of a default that fails it; the check of a sane schema takes a few
 * milliseconds.
 */
const DEFAULTS_CHECK_BUDGET_MS = 5_000;

/** A default of the settings schema that the schema of its own field rejects. */
export type SettingsDefaultProblem = Problem<typeof SCHEMA_DEFAULT_RULE>;

/**
 * Checks the `default` of every field of the emitted settings schema (`config.settings`) against
 * that field's own schema — a URL field whose default is `not a url`, a picklist default outside
 * its options — with the validator the platform schema check uses. The actor would refuse such a
 * default when it starts; `validate` finds it first. All the checks share a budget of 5 seconds:
 * a field whose check is still running when it runs out is stopped and reported, and the fields
 * after it are reported as not checked.
 * @param config the parsed platform configuration; a malformed one yields no problem here.
 */
export function settingsDefaultProblems(config: unknown): SettingsDefaultProblem[] {
  const settings = asObject(asObject(config)?.settings);
  const shared = Object.fromEntries(
    ['$defs', 'definitions'].flatMap((key) => (settings && key in settings ? [[key, settings[key]]] : [])),
  );
  const deadline = Date.now() + DEFAULTS_CHECK_BUDGET_MS;
  return settingFields(config).flatMap(({ key, schema, pointer }): SettingsDefaultProblem[] => {
    if (!Object.hasOwn(schema, 'default')) return [];
    const at = `${pointer}/default`;
    const left = deadline - Date.now();
    if (left <= 0)
      return [
        {
          rule: SCHEMA_DEFAULT_RULE,
          pointer: at,
          message: `not checked: the ${DEFAULTS_CHECK_BUDGET_MS / 1000} s all default checks may take ran out before this one`,
        },
      ];
    const { default: value, ...fieldSchema } = schema;
    const holder = { type: 'object', properties: { [key]: fieldSchema }, ...shared };
    const problems = withinTime(() => schemaProblems(holder, { [key]: value }), left);
    if (problems === undefined) {
      const message =
        `checking this default against its own schema took longer than ${DEFAULTS_CHECK_BUDGET_MS / 1000} s and was stopped: ` +
        'a `pattern` with a nested quantifier such as (a+)+ backtracks exponentially on a value it rejects; write the pattern without one';
      return [{ rule: SCHEMA_DEFAULT_RULE, pointer: at, message }];
    }
    return problems.map((problem) => ({
      rule: SCHEMA_DEFAULT_RULE,
      pointer: at,
      message: `the default ${JSON.stringify(value)} does not fit the field's own schema: ${problem.message}`,
    }));
  });
}

/**
 * Runs synchronous work under a time limit, or returns `undefined` when the limit stopped it. The
 * limit is node:vm's: its watchdog terminates whatever JavaScript runs, a regular expression
 * match included, and the work holds no state that an interruption could leave half changed.
 */
function withinTime<T>(work: () => T, milliseconds: number): T | undefined {
  try {
    return runInNewContext('work()', { work }, { timeout: Math.max(1, Math.ceil(milliseconds)) }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return undefined;
    throw error;
  }
}
