import { jsonPointer } from '../../../core/json-pointer.js';

/** A plain JSON object, or `undefined` for anything else. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** One field of the configuration's `settings`: its name, its JSON Schema and where it sits. */
export interface SettingField {
  readonly key: string;
  readonly schema: Record<string, unknown>;
  /** `/settings/properties/<key>` */
  readonly pointer: string;
}

/** The fields of `config.settings.properties` that are objects, in document order; nothing for a malformed config. */
export function settingFields(config: unknown): SettingField[] {
  const properties = asObject(asObject(asObject(config)?.settings)?.properties) ?? {};
  return Object.entries(properties).flatMap(([key, schema]) => {
    const object = asObject(schema);
    return object === undefined ? [] : [{ key, schema: object, pointer: jsonPointer('settings', 'properties', key) }];
  });
}

/** The pointer of one annotation of a field, e.g. `/settings/properties/api_key/x-platform-widget`. */
export function annotationPointer(field: SettingField, ...keys: readonly (string | number)[]): string {
  return `${field.pointer}${jsonPointer(...keys)}`;
}

/**
 * The JSON types a field's schema admits, `null` left out: from `type`, `anyOf`/`oneOf`
 * members, `enum` or `const`. `undefined` when the schema does not say.
 */
export function schemaTypes(schema: Record<string, unknown> | undefined): Set<string> | undefined {
  if (schema === undefined) return undefined;
  const { type } = schema;
  if (typeof type === 'string' || Array.isArray(type)) {
    return new Set(
      (Array.isArray(type) ? type : [type]).filter(
        (name): name is string => typeof name === 'string' && name !== 'null',
      ),
    );
  }
  for (const key of ['anyOf', 'oneOf']) {
    const members = schema[key];
    if (Array.isArray(members)) {
      const types = new Set<string>();
      for (const member of members) {
        const memberTypes = schemaTypes(asObject(member));
        if (memberTypes === undefined) return undefined;
        for (const name of memberTypes) types.add(name);
      }
      return types;
    }
  }
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (values === undefined) return undefined;
  return new Set(values.filter((value) => value !== null).map(jsonTypeOf));
}

/** The JSON type of a value: `integer` for whole numbers. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a value is admitted by a set of JSON types (an integer is also a number). */
export function valueFitsTypes(value: unknown, types: ReadonlySet<string>): boolean {
  const type = jsonTypeOf(value);
  return types.has(type) || (type === 'integer' && types.has('number'));
}
