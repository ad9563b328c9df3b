import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { pointerSegments, valueAtPointer } from '../../core/json-pointer.js';
import type { ValidationProblem } from './validation-problem.js';

/** Keywords whose errors only say "a sub-schema failed"; the sub-schema's own error says what. */
const CONTAINER_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentSchemas',
  '$ref',
  '$dynamicRef',
  'allOf',
  'if',
  'then',
  'else',
]);

/** Keywords whose sub-schema errors are alternatives that failed; only the summary is useful. */
const SUMMARY_KEYWORDS = new Set(['anyOf', 'oneOf', 'contains', 'not']);

/**
 * Validates a document against a Draft 2020-12 schema with `@cfworker/json-schema`, reporting
 * every error (no short-circuit), and turns the raw output into one problem per real fault, each
 * with an RFC 6901 pointer and a message naming the property.
 * @param schema the JSON Schema
 * @param document the instance to check
 */
export function schemaProblems(schema: Readonly<Record<string, unknown>>, document: unknown): ValidationProblem[] {
  const output = new Validator(schema as Record<string, unknown>, '2020-12', false).validate(document);
  if (output.valid) return [];
  const summaries = output.errors
    .filter((unit) => SUMMARY_KEYWORDS.has(unit.keyword))
    .map((unit) => `${unit.keywordLocation}/`);
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const unit of output.errors) {
    if (CONTAINER_KEYWORDS.has(unit.keyword)) continue;
    if (summaries.some((prefix) => unit.keywordLocation.startsWith(prefix))) continue;
    const problem = describe(unit, schema, document);
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function describe(unit: OutputUnit, schema: Readonly<Record<string, unknown>>, document: unknown): ValidationProblem {
  const pointer = decodeURIComponent(unit.instanceLocation.replace(/^#/, ''));
  const value = valueAtPointer(document, pointer);
  const keywordValue = schemaValueAt(schema, unit.keywordLocation);
  const name = propertyName(pointer);
  const problem = (message: string): ValidationProblem => ({ rule: 'schema', pointer, message });
  if (unit.keywordLocation.includes('/propertyNames/')) {
    return problem(`property name '${name}' is not allowed here: ${unit.error.replace(/\.$/, '')}`);
  }
  switch (unit.keyword) {
    case 'required': {
      const missing = /"(.*)"/.exec(unit.error)?.[1];
      return problem(missing === undefined ? unit.error : `missing required property '${missing}'`);
    }
    case 'false':
      return problem(`unknown property '${name}' is not allowed here`);
    case 'type':
      return problem(`'${name}' must be of type ${formatList(keywordValue, ' or ')} (got ${jsonType(value)})`);
    case 'const':
      return problem(`'${name}' must be ${JSON.stringify(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'enum':
      return problem(`'${name}' must be one of ${formatList(keywordValue, ', ', true)} (got ${JSON.stringify(value)})`);
    case 'pattern':
      return problem(`'${name}' must match the pattern ${String(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'minimum':
      return problem(`'${name}' must be >= ${String(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'maximum':
      return problem(`'${name}' must be <= ${String(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'exclusiveMinimum':
      return problem(`'${name}' must be > ${String(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'exclusiveMaximum':
      return problem(`'${name}' must be < ${String(keywordValue)} (got ${JSON.stringify(value)})`);
    case 'minLength':
      return problem(`'${name}' must have at least ${String(keywordValue)} character(s)`);
    case 'maxLength':
      return problem(`'${name}' must have at most ${String(keywordValue)} character(s)`);
    case 'minItems':
      return problem(`'${name}' must have at least ${String(keywordValue)} item(s)`);
    case 'maxItems':
      return problem(`'${name}' must have at most ${String(keywordValue)} item(s)`);
    case 'uniqueItems':
      return problem(`'${name}' must not repeat items: ${unit.error.replace(/\.$/, '').toLowerCase()}`);
    case 'contains':
      return problem(`'${name}' must contain ${describeMatch(keywordValue, schema)}`);
    default:
      return problem(`'${name}': ${unit.error.replace(/\.$/, '')}`);
  }
}

/** The name a message uses for the value at a pointer: its key, or `parent[index]` for an array item. */
function propertyName(pointer: string): string {
  const segments = pointerSegments(pointer);
  let suffix = '';
  while (segments.length > 0 && /^(0|[1-9][0-9]*)$/.test(segments.at(-1) ?? ''))
    suffix = `[${segments.pop()}]${suffix}`;
  return `${segments.at(-1) ?? 'configuration'}${suffix}`;
}

/** Follows a keyword location (`#/properties/a/$ref/type`) through the schema, resolving local `$ref`s. */
function schemaValueAt(schema: Readonly<Record<string, unknown>>, keywordLocation: string): unknown {
  let current: unknown = schema;
  for (const segment of pointerSegments(decodeURIComponent(keywordLocation.replace(/^#/, '')))) {
    if (segment === '$ref') current = resolveRef(schema, current);
    else
      current =
        typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

function resolveRef(schema: Readonly<Record<string, unknown>>, holder: unknown): unknown {
  const ref = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>).$ref : undefined;
  if (typeof ref !== 'string') return undefined;
  const fragment = ref.slice(ref.indexOf('#') + 1);
  return valueAtPointer(schema, decodeURIComponent(fragment));
}

/** Describes a `contains` sub-schema such as `{properties: {method: {const: 'POST'}, path: {const: '/agent/invoke'}}}`. */
function describeMatch(subschema: unknown, schema: Readonly<Record<string, unknown>>): string {
  const resolved =
    typeof subschema === 'object' && subschema !== null && '$ref' in subschema
      ? resolveRef(schema, subschema)
      : subschema;
  const properties = (resolved as { properties?: Record<string, { const?: unknown }> } | undefined)?.properties ?? {};
  const constants = Object.values(properties)
    .map((property) => property.const)
    .filter((constant) => constant !== undefined);
  return constants.length > 0 ? `an item ${constants.map(String).join(' ')}` : 'a matching item';
}

function formatList(value: unknown, separator: string, quote = false): string {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => (quote ? JSON.stringify(item) : String(item))).join(separator);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
