/**
 * `actorkit eval`: runs an actor's eval cases, scores them, compares the pass rates with the
 * stored baseline and writes the reports.
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { checkCaseTools, EVALS_DIR, loadEvalCases, type EvalCase } from './eval-case.js';
import { inProcessTarget, urlTarget, type EvalTarget } from './eval-target.js';
import { scoreRun, type EvalJudge, type RunOutcome } from './score-run.js';

/** The result of one case over its runs. */
interface CaseResult {
  readonly name: string;
  readonly file: string;
  readonly weight: number;
  /** `error` when a run could not run; `fail` when a run did not meet the expectations. */
  readonly status: 'pass' | 'fail' | 'error';
  readonly runs: number;
  readonly passed: number;
  /** passed / runs, 0 to 1. */
  readonly passRate: number;
  /** The pass rate in the baseline, when it has the case. */
  readonly baselineRate?: number;
  /** Whether the pass rate fell below the baseline's (or below 1 without one) by more than the tolerance. */
  readonly regressed: boolean;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** In US dollars, when prices are given. */
  readonly cost?: number;
  /** The slowest run's latency. */
  readonly latencyMs: number;
  /** What differed (or why it could not run), from the first run that did not pass. */
  readonly problems: readonly string[];
}

/** The outcome of `actorkit eval`: `failed` on a regression, `refused` when cases could not run. */
export interface EvalResult {
  readonly status: 'ok' | 'failed' | 'refused';
  readonly code?: string;
  readonly target: string;
  readonly cases: readonly CaseResult[];
  /** The weighted pass rate of all cases, 0 to 1. */
  readonly score: number;
  /** The report files written. */
  readonly reports: readonly string[];
  readonly baselineWritten: boolean;
}

/** The options of {@link runEvals}. */
export interface EvalOptions {
  /** Runs per case (default 1). */
  readonly repeat?: number;
  /** Cases run at once (default 4). */
  readonly concurrency?: number;
  /** A running actor's base URL, or an instance's edge URL on the platform (its base or its chat URL), instead of the actor in this process. */
  readonly url?: string;
  /** The key for `url` (else `ACTORKIT_EVAL_KEY`). */
  readonly key?: string;
  /** How far (0 to 1) a case's pass rate may fall below the baseline's before the eval fails (default 0). */
  readonly tolerance?: number;
  /** Report files to write beside the cases: `json` (`evals/results.json`), `junit` (`evals/junit.xml`). */
  readonly reporters?: readonly ('json' | 'junit')[];
  /** Write `evals/baseline.json` from this run's pass rates. */
  readonly updateBaseline?: boolean;
  /** US dollars per million input and output tokens, for a cost per case. */
  readonly prices?: { readonly input: number; readonly output: number };
  /** Only the cases whose name contains this text. */
  readonly filter?: string;
  readonly io?: Partial<CliIo>;
}

/** The baseline file, inside the cases folder. */
const BASELINE_FILE = 'baseline.json';

/**
 * Runs the eval cases of the actor in `actorDir` (its `evals/` folder): each case `repeat` times,
 * a few at once, with progress on standard error; then compares each pass rate with
 * `evals/baseline.json` (or with 1 when the baseline lacks the case). Never throws: bad cases, an
 * actor that does not load and a refused key are `refused`/`failed` results.
 * @param actorDir the actor folder, relative to `io.cwd`.
 * @param options repeats, target, tolerance, reports and baseline.
 * @example
 * const result = await runEvals('.', { repeat: 3, reporters: ['junit'] });
 * if (result.status !== 'ok') process.exitCode = 1;
 */
export async function runEvals(actorDir: string, options: EvalOptions = {}): Promise<EvalResult | CliFailure> {
  const io = resolveCliIo(options.io);
  const root = resolve(io.cwd, actorDir);
  let target: EvalTarget | undefined;
  try {
    const repeat = options.repeat ?? 1;
    if (!Number.isInteger(repeat) || repeat < 1)
      throw new CliError('refused', 'bad_usage', '--repeat must be a whole number of at least 1');
    const tolerance = options.tolerance ?? 0;
    if (!(tolerance >= 0 && tolerance <= 1))
      throw new CliError('refused', 'bad_usage', '--tolerance must be between 0 and 1');
    const casesDir = join(root, EVALS_DIR);
    let cases = await loadEvalCases(casesDir, io.cwd);
    if (options.filter !== undefined)
      cases = cases.filter((evalCase) => evalCase.name.includes(options.filter as string));
    if (options.url !== undefined) {
      // A shared actor's settings are not the eval's to change: those cases run only in the process.
      const skipped = cases.filter((evalCase) => evalCase.settings !== undefined);
      for (const evalCase of skipped)
        io.stderr.write(`skipped ${evalCase.name}: its settings overrides run only in the process (without --url)\n`);
      cases = cases.filter((evalCase) => evalCase.settings === undefined);
    }
    target =
      options.url !== undefined
        ? urlTarget(options.url, options.key ?? io.env.ACTORKIT_EVAL_KEY)
        : await inProcessTarget(root, io.env);
    if (target.toolNames !== undefined) checkCaseTools(cases, target.toolNames);
    const judge = judgeOf(io.env);
    const outcomes = await runAll(cases, repeat, options.concurrency ?? 4, io, (evalCase, index) =>
      scoreRun(evalCase, target as EvalTarget, { session: `eval-${evalCase.name}-${index}-${Date.now()}`, judge }),
    );
    const baseline = await readBaseline(join(casesDir, BASELINE_FILE));
    const results = cases.map((evalCase) =>
      caseResult(evalCase, outcomes.get(evalCase) ?? [], baseline[evalCase.name], tolerance, options.prices),
    );
    const totalWeight = results.reduce((sum, result) => sum + result.weight, 0);
    const score =
      totalWeight === 0 ? 0 : results.reduce((sum, result) => sum + result.weight * result.passRate, 0) / totalWeight;
    const reports: string[] = [];
    for (const reporter of options.reporters ?? []) {
      const file = join(casesDir, reporter === 'json' ? 'results.json' : 'junit.xml');
      await writeFile(
        file,
        reporter === 'json'
          ? `${JSON.stringify({ target: target.description, score, cases: results }, null, 2)}\n`
          : junitXml(results),
      );
      reports.push(relative(io.cwd, file));
    }
    const errored = results.some((result) => result.status === 'error');
    if (options.updateBaseline === true && !errored) {
      const rates = Object.fromEntries(results.map((result) => [result.name, result.passRate]));
      await writeFile(join(casesDir, BASELINE_FILE), `${JSON.stringify(rates, null, 2)}\n`);
    }
    const status = errored
      ? 'refused'
      : results.some((result) => result.regressed) && options.updateBaseline !== true
        ? 'failed'
        : 'ok';
    return {
      status,
      ...(errored ? { code: 'cases_not_run' } : {}),
      target: target.description,
      cases: results,
      score,
      reports,
      baselineWritten: options.updateBaseline === true && !errored,
    };
  } catch (error) {
    return toCliFailure(error);
  } finally {
    await target?.close().catch(() => undefined);
  }
}

/** The judge of rubrics: `EVAL_JUDGE_BASE_URL`/`_MODEL`/`_API_KEY`, else the actor's own OpenAI-compatible model (`LLM_*`). */
function judgeOf(env: Readonly<Record<string, string | undefined>>): EvalJudge | undefined {
  const prefix = env.EVAL_JUDGE_BASE_URL !== undefined ? 'EVAL_JUDGE' : 'LLM';
  const baseUrl = env[`${prefix}_BASE_URL`];
  const model = env[`${prefix}_MODEL`];
  if (baseUrl === undefined || model === undefined) return undefined;
  const apiKey = env[`${prefix}_API_KEY`];
  return { baseUrl, model, ...(apiKey !== undefined ? { apiKey } : {}) };
}

async function runAll(
  cases: readonly EvalCase[],
  repeat: number,
  concurrency: number,
  io: CliIo,
  run: (evalCase: EvalCase, index: number) => Promise<RunOutcome>,
): Promise<Map<EvalCase, RunOutcome[]>> {
  const queue = cases.flatMap((evalCase) => Array.from({ length: repeat }, (_, index) => ({ evalCase, index })));
  const outcomes = new Map<EvalCase, RunOutcome[]>(cases.map((evalCase) => [evalCase, []]));
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined && failure === undefined; next = queue.shift()) {
      try {
        const outcome = await run(next.evalCase, next.index);
        outcomes.get(next.evalCase)?.push(outcome);
        done += 1;
        io.stderr.write(
          `${progressBar(done, cases.length * repeat)} ${outcome.status.padEnd(5)} ${next.evalCase.name}\n`,
        );
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  if (failure !== undefined) throw failure;
  return outcomes;
}

function progressBar(done: number, total: number): string {
  const width = 20;
  const filled = Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}

function caseResult(
  evalCase: EvalCase,
  outcomes: readonly RunOutcome[],
  baselineRate: number | undefined,
  tolerance: number,
  prices: EvalOptions['prices'],
): CaseResult {
  const passed = outcomes.filter((outcome) => outcome.status === 'pass').length;
  const passRate = outcomes.length === 0 ? 0 : passed / outcomes.length;
  const errored = outcomes.find((outcome) => outcome.status === 'error');
  const failed = outcomes.find((outcome) => outcome.status !== 'pass');
  const inputTokens = outcomes.reduce((sum, outcome) => sum + outcome.inputTokens, 0);
  const outputTokens = outcomes.reduce((sum, outcome) => sum + outcome.outputTokens, 0);
  return {
    name: evalCase.name,
    file: evalCase.file,
    weight: evalCase.weight,
    status: errored ? 'error' : passed === outcomes.length ? 'pass' : 'fail',
    runs: outcomes.length,
    passed,
    passRate,
    ...(baselineRate !== undefined ? { baselineRate } : {}),
    regressed: errored === undefined && passRate < (baselineRate ?? 1) - tolerance - 1e-9,
    inputTokens,
    outputTokens,
    ...(prices ? { cost: (inputTokens * prices.input + outputTokens * prices.output) / 1_000_000 } : {}),
    latencyMs: Math.max(0, ...outcomes.map((outcome) => outcome.latencyMs)),
    problems: failed?.problems ?? [],
  };
}

async function readBaseline(path: string): Promise<Record<string, number>> {
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object of pass rates');
    return parsed as Record<string, number>;
  } catch (error) {
    throw new CliError(
      'refused',
      'bad_baseline',
      `${path} is not a baseline (case name → pass rate): ${(error as Error).message}`,
    );
  }
}

function junitXml(results: readonly CaseResult[]): string {
  const escapeXml = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const failures = results.filter((result) => result.status === 'fail').length;
  const errors = results.filter((result) => result.status === 'error').length;
  const testcases = results.map((result) => {
    const time = (result.latencyMs / 1000).toFixed(3);
    const open = `    <testcase classname="evals" name="${escapeXml(result.name)}" file="${escapeXml(result.file)}" time="${time}"`;
    if (result.status === 'pass') return `${open}/>`;
    const tag = result.status === 'error' ? 'error' : 'failure';
    const message = `${result.passed}/${result.runs} passed: ${result.problems.join('; ')}`;
    return `${open}>\n      <${tag} message="${escapeXml(message)}"/>\n    </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="actorkit eval" tests="${results.length}" failures="${failures}" errors="${errors}">\n${testcases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

/**
 * The results table `actorkit eval` prints: one row per case (status, pass rate against the
 * baseline, tokens, cost, slowest latency), what differed under each case that did not pass, and
 * the weighted score.
 * @param result what {@link runEvals} returned.
 */
export function evalResultsText(result: EvalResult): string {
  const rows = result.cases.map((entry) => [
    entry.status === 'pass' ? 'PASS' : entry.status === 'fail' ? 'FAIL' : 'ERROR',
    entry.name,
    `${entry.passed}/${entry.runs}${entry.baselineRate !== undefined ? ` (baseline ${Math.round(entry.baselineRate * 100)}%)` : ''}${entry.regressed ? ' regressed' : ''}`,
    `${entry.inputTokens}+${entry.outputTokens}`,
    entry.cost !== undefined ? `$${entry.cost.toFixed(4)}` : '-',
    `${entry.latencyMs} ms`,
  ]);
  const header = ['status', 'case', 'passed', 'tokens in+out', 'cost', 'slowest'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  const lines = [`eval of ${result.target}`, line(header)];
  for (const [index, row] of rows.entries()) {
    lines.push(line(row));
    for (const problem of result.cases[index]?.problems ?? []) lines.push(`    - ${problem}`);
  }
  const passed = result.cases.filter((entry) => entry.status === 'pass').length;
  lines.push(`${passed}/${result.cases.length} cases passed, score ${Math.round(result.score * 100)}%`);
  return `${lines.join('\n')}\n`;
}
