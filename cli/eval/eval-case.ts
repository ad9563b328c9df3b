/**
 * The eval cases of an actor: one YAML file per case under `evals/`, checked as they load so a
 * mistake names the file, the line and the field.
 * @module
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import * as v from 'valibot';
import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { CliError } from '../cli-error.js';

const Text = v.pipe(v.string(), v.minLength(1));

const Pattern = v.pipe(
  Text,
  v.check((pattern) => compiles(pattern), 'is not a valid regular expression'),
);

/** A tool the model must call: its name and, optionally, a subset of its arguments (`/…/` strings match as regular expressions). */
const CalledTool = v.strictObject({
  name: Text,
  args: v.optional(v.record(v.string(), v.unknown())),
});

/** One eval case, as written in `evals/<name>.yaml`. */
const EvalCaseFile = v.strictObject({
  name: v.optional(Text),
  description: v.optional(v.string()),
  weight: v.optional(v.pipe(v.number(), v.minValue(0)), 1),
  tenant: v.optional(Text),
  session: v.optional(Text),
  settings: v.optional(v.record(v.string(), v.unknown())),
  turns: v.pipe(v.array(Text), v.minLength(1, 'needs at least one user turn')),
  expect: v.optional(
    v.strictObject({
      tools: v.optional(
        v.strictObject({
          called: v.optional(v.array(CalledTool)),
          not_called: v.optional(v.array(Text)),
          in_order: v.optional(v.boolean()),
        }),
      ),
      reply: v.optional(
        v.strictObject({
          contains: v.optional(v.union([Text, v.array(Text)])),
          regex: v.optional(Pattern),
          json_schema: v.optional(v.record(v.string(), v.unknown())),
          rubric: v.optional(Text),
        }),
      ),
    }),
  ),
  budgets: v.optional(
    v.strictObject({
      latency_ms: v.optional(v.pipe(v.number(), v.minValue(1))),
      tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  ),
});

/** One eval case, loaded: what its file says, its name (the file's name by default) and where it came from. */
export type EvalCase = v.InferOutput<typeof EvalCaseFile> & {
  readonly name: string;
  /** The case file, relative to the actor folder. */
  readonly file: string;
};

/** Where an actor keeps its eval cases. */
export const EVALS_DIR = 'evals';

/**
 * Loads every `*.yaml` / `*.yml` case under `dir` (sorted by file name), each checked against the
 * case format; a malformed file is a `refused` error naming the file, the line and the field, and
 * two cases of one name are refused too.
 * @param dir the folder of the case files.
 * @param shownFrom the folder the file names in messages are relative to.
 */
export async function loadEvalCases(dir: string, shownFrom: string): Promise<EvalCase[]> {
  if (!existsSync(dir)) throw new CliError('refused', 'no_eval_cases', `${dir} does not exist: write eval cases there`);
  const files = (await readdir(dir)).filter((file) => /\.ya?ml$/.test(file)).sort();
  if (files.length === 0) throw new CliError('refused', 'no_eval_cases', `no eval case (*.yaml) in ${dir}`);
  const cases: EvalCase[] = [];
  for (const file of files) {
    const shown = relative(shownFrom, join(dir, file)) || file;
    const loaded = parseEvalCase(await readFile(join(dir, file), 'utf8'), shown);
    const twin = cases.find((other) => other.name === loaded.name);
    if (twin)
      throw new CliError(
        'refused',
        'bad_eval_case',
        `${shown}: the case name '${loaded.name}' is taken by ${twin.file}`,
      );
    cases.push(loaded);
  }
  return cases;
}

/**
 * Parses and checks one case file's text, as {@link loadEvalCases} does for each file.
 * @param text the YAML text.
 * @param file the file's name as messages show it; its base name is the case's default name.
 */
export function parseEvalCase(text: string, file: string): EvalCase {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const [syntax] = document.errors;
  if (syntax) {
    const line = syntax.linePos?.[0].line ?? lineCounter.linePos(syntax.pos[0]).line;
    throw caseError(file, line, undefined, syntax.message.split('\n')[0] ?? 'invalid YAML');
  }
  const parsed = v.safeParse(EvalCaseFile, document.toJS());
  if (!parsed.success) {
    const [issue] = parsed.issues;
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    const field = path.length > 0 ? path.join('.') : undefined;
    throw caseError(file, fieldLine(document, lineCounter, path), field, issueMessage(issue));
  }
  const base =
    file
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.ya?ml$/, '') ?? file;
  return { ...parsed.output, name: parsed.output.name ?? base, file };
}

/**
 * Refuses a case that names a tool the actor does not have (in `called` or `not_called`).
 * @param cases the loaded cases.
 * @param toolNames the tools the actor's model may call.
 */
export function checkCaseTools(cases: readonly EvalCase[], toolNames: readonly string[]): void {
  for (const evalCase of cases) {
    const named = [
      ...(evalCase.expect?.tools?.called ?? []).map((tool) => tool.name),
      ...(evalCase.expect?.tools?.not_called ?? []),
    ];
    const unknown = named.find((name) => !toolNames.includes(name));
    if (unknown !== undefined) {
      const known = toolNames.length > 0 ? toolNames.join(', ') : 'none';
      throw new CliError(
        'refused',
        'unknown_eval_tool',
        `${evalCase.file}: the case '${evalCase.name}' names the tool '${unknown}', which the actor does not have (its tools: ${known})`,
      );
    }
  }
}

/** The line of the field at `path`: its key's line, else that of the nearest enclosing field that exists (a missing field). */
function fieldLine(document: Document, lineCounter: LineCounter, path: readonly (string | number)[]): number {
  for (let depth = path.length; depth > 0; depth--) {
    const parent = document.getIn(path.slice(0, depth - 1), true);
    const key = path[depth - 1];
    const node = isMap(parent)
      ? parent.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.key
      : isSeq(parent)
        ? parent.items[key as number]
        : undefined;
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) return lineCounter.linePos(range[0]).line;
  }
  return 1;
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.input !== undefined) return 'is not a field of an eval case here';
  if (issue.input === undefined) return 'is required';
  return issue.message;
}

function caseError(file: string, line: number, field: string | undefined, message: string): CliError {
  const where = field === undefined ? '' : ` ${field}`;
  return new CliError('refused', 'bad_eval_case', `${file}:${line}:${where} ${message}`);
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
