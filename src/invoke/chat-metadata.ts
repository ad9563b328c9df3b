import * as v from 'valibot';
import { objectOnly } from '../core/read-json-body.js';
import { isStorableText, UNSTORABLE_TEXT_DETAIL } from './storable-text.js';

const MAX_METADATA_BYTES = 16 * 1024;

/** Deepest nesting of objects and arrays `metadata` may hold (the top-level object is level 1). */
export const MAX_METADATA_DEPTH = 32;

interface MetadataProblem {
  /** Where the problem is, inside `metadata`. */
  readonly path: readonly v.IssuePathItem[];
  readonly detail: string;
  /** Named at `/metadata` itself: past the depth limit a pointer would be as deep as the hostile nesting. */
  readonly atTop?: boolean;
}

function pathItem(input: unknown, key: string | number, value: unknown): v.IssuePathItem {
  return Array.isArray(input)
    ? { type: 'array', origin: 'value', input, key: key as number, value }
    : { type: 'object', origin: 'value', input: input as Record<string, unknown>, key: key as string, value };
}

/**
 * The first problem of a metadata value, walking at most `MAX_METADATA_DEPTH` levels, so a
 * hostile nesting never reaches a recursive `JSON.stringify`: too deep, or a key or string
 * no store can keep.
 */
function metadataProblem(value: unknown, depth: number): MetadataProblem | undefined {
  if (typeof value === 'string')
    return isStorableText(value) ? undefined : { path: [], detail: UNSTORABLE_TEXT_DETAIL };
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_METADATA_DEPTH)
    return { path: [], detail: `must nest at most ${MAX_METADATA_DEPTH} levels deep`, atTop: true };
  for (const [key, item] of Object.entries(value)) {
    if (!isStorableText(key)) return { path: [], detail: `keys ${UNSTORABLE_TEXT_DETAIL}` };
    const problem = metadataProblem(item, depth + 1);
    if (problem === undefined) continue;
    if (problem.atTop) return problem;
    return {
      path: [pathItem(value, Array.isArray(value) ? Number(key) : key, item), ...problem.path],
      detail: problem.detail,
    };
  }
  return undefined;
}

/**
 * The `metadata` of a chat request: a JSON object (not an array) of at most 16 KiB serialised,
 * nested at most `MAX_METADATA_DEPTH` levels, whose keys and strings a store can keep.
 */
export const ChatMetadata = v.pipe(
  objectOnly(v.record(v.string(), v.unknown())),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const metadata = dataset.value;
    const problem = metadataProblem(metadata, 1);
    if (problem !== undefined) {
      addIssue({
        message: problem.detail,
        ...(problem.path.length > 0 ? { path: [...problem.path] as [v.IssuePathItem, ...v.IssuePathItem[]] } : {}),
      });
      return;
    }
    if (new TextEncoder().encode(JSON.stringify(metadata)).length > MAX_METADATA_BYTES)
      addIssue({ message: 'must be at most 16 KiB when serialised' });
  }),
  // JSON Schema has no keyword for a serialised size: /openapi.json states the limit as an extension clients (and the conformance test) read.
  v.metadata({ 'x-max-serialized-bytes': MAX_METADATA_BYTES }),
  v.description(
    `A JSON object of at most ${MAX_METADATA_BYTES / 1024} KiB serialised, nested at most ${MAX_METADATA_DEPTH} levels, with no NUL character in its keys and strings`,
  ),
);
