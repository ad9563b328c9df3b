import { toJsonSchema } from '@valibot/to-json-schema';
import type { SettingsSchema } from '../core/actor-definition.js';

/** A JSON Schema document, as plain JSON. */
export type JsonSchemaDocument = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

/**
 * Converts an actor's valibot settings schema to JSON Schema 2020-12, keeping every
 * `x-platform-*` annotation and dropping the defaults of secret fields. `GET /settings/schema` and the emitted `settings` block both
 * come from this one function, so they cannot disagree.
 */
export function settingsJsonSchema(schema: SettingsSchema): JsonSchemaDocument {
  const converted = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as JsonSchemaDocument;
  const document: JsonSchemaDocument = { ...converted, $schema: 'https://json-schema.org/draft/2020-12/schema' };
  for (const key of secretSettingKeys(document)) {
    const { default: _secretDefault, ...property } = document.properties![key]!;
    document.properties![key] = property;
  }
  return document;
}

/** Names of the settings that are secrets: `writeOnly`, or shown with the `password` widget. */
export function secretSettingKeys(jsonSchema: JsonSchemaDocument): string[] {
  const properties = jsonSchema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties)
    .filter(
      ([, property]) =>
        typeof property === 'object' &&
        property !== null &&
        (property.writeOnly === true || property['x-platform-widget'] === 'password'),
    )
    .map(([key]) => key);
}
