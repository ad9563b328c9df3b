import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  loadBaseConfig,
  loadPlatformConfigFixtures,
} from '../../../test/fixtures/platform-config/platform-config-fixtures.js';
import { PLATFORM_RULES } from './platform-rules.js';
import { PLATFORM_SCHEMA, validatePlatformConfig } from './validate-platform-config.js';

const fixtures = loadPlatformConfigFixtures();
const byPosition = (a: { rule: string; pointer: string }, b: { rule: string; pointer: string }) =>
  `${a.rule} ${a.pointer}`.localeCompare(`${b.rule} ${b.pointer}`);

describe('validatePlatformConfig on the fixture corpus', () => {
  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', (_name, fixture) => {
    const { valid, problems } = validatePlatformConfig(fixture.config);
    const found = problems.map(({ rule, pointer }) => ({ rule, pointer })).sort(byPosition);
    expect(found).toEqual([...fixture.problems].sort(byPosition));
    expect(valid).toBe(fixture.problems.length === 0);
  });

  it('covers every registered rule with a passing and a failing case, and the schema with failing ones', () => {
    for (const { letter: rule } of PLATFORM_RULES) {
      expect(
        fixtures.some((fixture) => fixture.name.startsWith(`${rule}-pass`) && fixture.problems.length === 0),
        rule,
      ).toBe(true);
      expect(
        fixtures.some((fixture) => fixture.problems.some((problem) => problem.rule === rule)),
        rule,
      ).toBe(true);
    }
    expect(
      fixtures.filter((fixture) => fixture.problems.some((problem) => problem.rule === 'schema')).length,
    ).toBeGreaterThanOrEqual(4);
  });
});

describe('validatePlatformConfig messages', () => {
  const problemsOf = (name: string) =>
    validatePlatformConfig(fixtures.find((fixture) => fixture.name === name)?.config).problems;

  it('says which root property is missing, at the root pointer', () => {
    expect(problemsOf('schema-missing-deployment')).toEqual([
      { rule: 'schema', pointer: '', message: "missing required property 'deployment'" },
    ]);
  });

  it('names the property, the expected and the actual type', () => {
    expect(problemsOf('schema-wrong-types')).toContainEqual({
      rule: 'schema',
      pointer: '/deployment/port',
      message: "'port' must be of type integer (got string)",
    });
    expect(problemsOf('schema-wrong-types')).toContainEqual({
      rule: 'schema',
      pointer: '/schema_version',
      message: `'schema_version' must be "1.0" (got "2.0")`,
    });
  });

  it('names unknown keys and missing required endpoints', () => {
    expect(problemsOf('schema-unknown-keys').map((problem) => problem.message)).toEqual([
      "unknown property 'imagerepo' is not allowed here",
      "unknown property 'x-platform-colour' is not allowed here",
    ]);
    expect(problemsOf('schema-missing-required-endpoint')[0]?.message).toBe(
      "'endpoints' must contain an item GET /ready",
    );
  });

  it('explains each rule problem in terms of the field', () => {
    expect(problemsOf('E-fail-show-if-cycle')[0]?.message).toBe(
      'show-if chain forms a cycle: greeting_enabled -> greeting -> greeting_enabled',
    );
    expect(problemsOf('G-fail-settings-exposed')[0]?.message).toContain('settings and OAuth are never exposable');
    expect(problemsOf('H-fail-requests-exceed-limits')[0]?.message).toBe(
      'requests.memory (1Gi) exceeds limits.memory (512Mi)',
    );
    expect(problemsOf('D-fail-slider-on-string')[0]?.message).toContain(
      "widget 'slider' does not fit setting 'system_prompt' of type string",
    );
  });

  it('reports a non-object document as one schema problem and does not throw', () => {
    expect(validatePlatformConfig('config')).toEqual({
      valid: false,
      problems: [{ rule: 'schema', pointer: '', message: "'configuration' must be of type object (got string)" }],
    });
    expect(validatePlatformConfig(null).valid).toBe(false);
  });
});

describe('validatePlatformConfig robustness', () => {
  it('never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(validatePlatformConfig(value).valid).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws when any value of a valid configuration is replaced by arbitrary JSON', () => {
    const paths: string[][] = [];
    const walk = (value: unknown, path: string[]) => {
      if (path.length > 0) paths.push(path);
      if (typeof value === 'object' && value !== null)
        for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    };
    walk(loadBaseConfig(), []);
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), (path, replacement) => {
        const config = loadBaseConfig();
        let parent: Record<string, unknown> = config;
        for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
        parent[path.at(-1) as string] = replacement;
        const result = validatePlatformConfig(config);
        expect(result.valid).toBe(result.problems.length === 0);
      }),
      { numRuns: 300 },
    );
  });
});

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
