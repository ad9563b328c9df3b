import { describe, expect, it } from 'vitest';
import { PLATFORM_SCHEMA } from './platform-schema.js';

type Schema = Record<string, unknown>;

/** Every `properties` entry of the schema, with where it sits. */
function propertyEntries(schema: unknown, path = '#'): [string, Schema][] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Schema;
  const entries: [string, Schema][] = [];
  for (const [name, property] of Object.entries((node.properties ?? {}) as Schema)) {
    entries.push(
      [`${path}/properties/${name}`, property as Schema],
      ...propertyEntries(property, `${path}/properties/${name}`),
    );
  }
  for (const [name, definition] of Object.entries((node.$defs ?? {}) as Schema)) {
    if (name !== 'endpointMatch') entries.push(...propertyEntries(definition, `${path}/$defs/${name}`));
  }
  for (const key of ['items', 'additionalProperties']) entries.push(...propertyEntries(node[key], `${path}/${key}`));
  return entries;
}

function resolve(property: Schema): Schema {
  const ref = property.$ref;
  if (typeof ref !== 'string') return property;
  const name = ref.replace('#/$defs/', '');
  return { ...((PLATFORM_SCHEMA.$defs as Record<string, Schema>)[name] ?? {}), ...property };
}

describe('the platform schema file', () => {
  it('describes every key it declares', () => {
    const entries = propertyEntries(PLATFORM_SCHEMA);
    expect(entries.map(([path]) => path)).toContain(
      '#/$defs/settingField/properties/x-platform-show-if/properties/equals',
    );
    expect(entries.length).toBeGreaterThan(80);
    const undocumented = entries
      .filter(([, property]) => typeof resolve(property).description !== 'string')
      .map(([path]) => path);
    expect(undocumented).toEqual([]);
  });

  it('declares every root key of DESIGN §7 as required', () => {
    expect(PLATFORM_SCHEMA.required).toEqual([
      'schema_version',
      'actor',
      'contract',
      'deployment',
      'features',
      'external_api',
      'sections',
      'settings',
      'panels',
      'oauth',
      'connectors',
    ]);
  });
});
