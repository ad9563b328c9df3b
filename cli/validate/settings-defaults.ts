import { schemaProblems } from '../../src/config/validate/schema-problems.js';
import { asObject, settingFields } from '../../src/config/validate/rules/setting-fields.js';

/** The rule of a problem found by {@link settingsDefaultProblems}. */
const SCHEMA_DEFAULT_RULE = 'schema default';

/** A default of the settings schema that the schema of its own field rejects. */
export interface SettingsDefaultProblem {
  readonly rule: typeof SCHEMA_DEFAULT_RULE;
  readonly pointer: string;
  readonly message: string;
}

/**
 * Checks the `default` of every field of the emitted settings schema (`config.settings`) against
 * that field's own schema — a URL field whose default is `not a url`, a picklist default outside
 * its options — with the validator the platform schema check uses. The actor would refuse such a
 * default when it starts; `validate` finds it first.
 * @param config the parsed platform configuration; a malformed one yields no problem here.
 */
export function settingsDefaultProblems(config: unknown): SettingsDefaultProblem[] {
  const settings = asObject(asObject(config)?.settings);
  const shared = Object.fromEntries(['$defs', 'definitions'].flatMap((key) => (settings && key in settings ? [[key, settings[key]]] : [])));
  return settingFields(config).flatMap(({ key, schema, pointer }) => {
    if (!Object.hasOwn(schema, 'default')) return [];
    const { default: value, ...fieldSchema } = schema;
    const holder = { type: 'object', properties: { [key]: fieldSchema }, ...shared };
    return schemaProblems(holder, { [key]: value }).map((problem) => ({
      rule: SCHEMA_DEFAULT_RULE,
      pointer: `${pointer}/default`,
      message: `the default ${JSON.stringify(value)} does not fit the field's own schema: ${problem.message}`,
    }));
  });
}
