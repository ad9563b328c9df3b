import { toJsonSchema } from '@valibot/to-json-schema';
import type { SettingsSchema } from '../app/actor-definition.js';

/** A JSON Schema document, as plain JSON. */
export type JsonSchemaDocument = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

/**
 * Converts an actor's valibot settings schema to JSON Schema 2020-12, keeping every
 * `x-platform-*` annotation. `GET /settings/schema` and the emitted `settings` block both
 * come from this one function, so they cannot disagree.
 */
export function settingsJsonSchema(schema: SettingsSchema): JsonSchemaDocument {
  const converted = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as JsonSchemaDocument;
  return { ...converted, $schema: 'https://json-schema.org/draft/2020-12/schema' };
}

/** Names of the settings that are secrets: `writeOnly`, or shown with the `password` widget. */
export function secretSettingKeys(jsonSchema: JsonSchemaDocument): string[] {
  return Object.entries(jsonSchema.properties ?? {})
    .filter(([, property]) => property.writeOnly === true || property['x-platform-widget'] === 'password')
    .map(([key]) => key);
}
