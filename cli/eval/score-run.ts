/**
 * One run of an eval case: its turns sent to the target, then every expectation checked — the
 * tools called and not called, the reply, the budgets, and a rubric graded by a model judge.
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { CliError } from '../cli-error.js';
import type { EvalCase } from './eval-case.js';
import type { EvalTarget } from './eval-target.js';

/** How one run of a case ended: `error` when it could not run (the model or the judge failed). */
export interface RunOutcome {
  readonly status: 'pass' | 'fail' | 'error';
  /** What differed from the expectations (`fail`), or why it could not run (`error`). */
  readonly problems: readonly string[];
  readonly latencyMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The tools called, in order. */
  readonly toolsCalled: readonly string[];
}

/** The OpenAI-compatible chat model that grades rubrics. */
export interface EvalJudge {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
}

interface ToolCallSeen {
  readonly name: string;
  readonly arguments?: unknown;
  readonly status?: string;
  readonly error?: string;
}

interface ReplyShape {
  readonly message?: { readonly content?: string };
  readonly tool_calls?: readonly ToolCallSeen[];
  readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number };
  readonly finish_reason?: string;
}

/**
 * Runs a case once: its turns in one session, then its expectations on the tools called over all
 * turns and on the last reply. A turn that does not answer 200 (the model is down) makes the run
 * `error`; a refused key is rethrown (one error for the whole eval).
 * @param evalCase the case.
 * @param target the actor.
 * @param options the run's session id and the judge for rubrics.
 */
export async function scoreRun(
  evalCase: EvalCase,
  target: EvalTarget,
  options: { session: string; judge: EvalJudge | undefined },
): Promise<RunOutcome> {
  const started = performance.now();
  const calls: ToolCallSeen[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let last: ReplyShape = {};
  const outcome = (status: RunOutcome['status'], problems: string[]): RunOutcome => ({
    status,
    problems,
    latencyMs: Math.round(performance.now() - started),
    inputTokens,
    outputTokens,
    toolsCalled: calls.map((call) => call.name),
  });
  for (const message of evalCase.turns) {
    let answer: Awaited<ReturnType<EvalTarget['invoke']>>;
    try {
      answer = await target.invoke({
        message,
        session: evalCase.session ?? options.session,
        ...(evalCase.tenant !== undefined ? { tenant: evalCase.tenant } : {}),
        ...(evalCase.settings !== undefined ? { settings: evalCase.settings } : {}),
      });
    } catch (error) {
      if (error instanceof CliError && error.code === 'key_refused') throw error;
      return outcome('error', [`the actor could not be reached: ${(error as Error).message}`]);
    }
    if (answer.status !== 200) {
      const detail =
        (answer.body as { detail?: string; title?: string } | null)?.detail ??
        (answer.body as { title?: string } | null)?.title;
      return outcome('error', [`the actor answered ${answer.status}${detail ? `: ${detail}` : ''}`]);
    }
    last = (answer.body ?? {}) as ReplyShape;
    if (last.finish_reason === 'error') return outcome('error', ['the model failed (finish_reason error)']);
    calls.push(...(last.tool_calls ?? []));
    inputTokens += last.usage?.input_tokens ?? 0;
    outputTokens += last.usage?.output_tokens ?? 0;
  }
  const latencyMs = Math.round(performance.now() - started);
  const reply = last.message?.content ?? '';
  const problems = [...toolProblems(evalCase, calls), ...replyProblems(evalCase, reply)];
  const budgets = evalCase.budgets;
  if (budgets?.latency_ms !== undefined && latencyMs > budgets.latency_ms)
    problems.push(`took ${latencyMs} ms, over the budget of ${budgets.latency_ms} ms`);
  if (budgets?.tokens !== undefined && inputTokens + outputTokens > budgets.tokens)
    problems.push(`used ${inputTokens + outputTokens} tokens, over the budget of ${budgets.tokens}`);
  const rubric = evalCase.expect?.reply?.rubric;
  if (rubric !== undefined) {
    if (options.judge === undefined)
      return outcome('error', [
        'the rubric needs a judge: set EVAL_JUDGE_BASE_URL and EVAL_JUDGE_MODEL (or LLM_BASE_URL and LLM_MODEL)',
      ]);
    try {
      const verdict = await judgeReply(options.judge, { rubric, turns: evalCase.turns, reply });
      if (!verdict.pass) problems.push(`the judge failed the rubric: ${verdict.reason}`);
    } catch (error) {
      return outcome('error', [`the judge could not grade the rubric: ${(error as Error).message}`]);
    }
  }
  return outcome(problems.length === 0 ? 'pass' : 'fail', problems);
}

function toolProblems(evalCase: EvalCase, calls: readonly ToolCallSeen[]): string[] {
  const expected = evalCase.expect?.tools;
  if (expected === undefined) return [];
  const problems: string[] = [];
  const called = calls.map((call) => call.name);
  const shown = called.length > 0 ? called.join(', ') : 'none';
  let from = 0;
  for (const want of expected.called ?? []) {
    const candidates = calls.map((call, index) => ({ call, index })).filter(({ call }) => call.name === want.name);
    if (candidates.length === 0) {
      problems.push(`expected a call of ${want.name}, the tools called were: ${shown}`);
      continue;
    }
    const matching = candidates.filter(({ call }) => want.args === undefined || matchesArgs(want.args, call.arguments));
    if (matching.length === 0) {
      const seen = candidates.map(({ call }) => JSON.stringify(call.arguments)).join(', ');
      problems.push(`${want.name} was called with ${seen}, expected arguments matching ${JSON.stringify(want.args)}`);
      continue;
    }
    if (matching.every(({ call }) => call.status === 'error')) {
      problems.push(`${want.name} was called but failed: ${matching[0]?.call.error ?? 'error'}`);
      continue;
    }
    if (expected.in_order === true) {
      const next = matching.find(({ index }) => index >= from);
      if (next === undefined) problems.push(`${want.name} was not called in the expected order (called: ${shown})`);
      else from = next.index + 1;
    }
  }
  for (const name of expected.not_called ?? []) {
    if (called.includes(name)) problems.push(`${name} was called, the case says it must not be`);
  }
  return problems;
}

/** Whether `actual` holds every key of `expected` with a matching value: a `/…/` string is a regular expression, objects match as subsets. */
function matchesArgs(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'string' && /^\/.+\/[a-z]*$/.test(expected) && typeof actual === 'string') {
    const end = expected.lastIndexOf('/');
    return new RegExp(expected.slice(1, end), expected.slice(end + 1)).test(actual);
  }
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((item, index) => matchesArgs(item, actual[index]))
    );
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return false;
    return Object.entries(expected).every(([key, value]) =>
      matchesArgs(value, (actual as Record<string, unknown>)[key]),
    );
  }
  return expected === actual;
}

function replyProblems(evalCase: EvalCase, reply: string): string[] {
  const expected = evalCase.expect?.reply;
  if (expected === undefined) return [];
  const problems: string[] = [];
  const contains = typeof expected.contains === 'string' ? [expected.contains] : (expected.contains ?? []);
  for (const text of contains)
    if (!reply.includes(text)) problems.push(`the reply does not contain ${JSON.stringify(text)}: ${excerpt(reply)}`);
  if (expected.regex !== undefined && !new RegExp(expected.regex).test(reply))
    problems.push(`the reply does not match /${expected.regex}/: ${excerpt(reply)}`);
  if (expected.json_schema !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(reply);
    } catch {
      problems.push(`the reply is not JSON: ${excerpt(reply)}`);
      return problems;
    }
    const result = new Validator(expected.json_schema as object, '2020-12', false).validate(json);
    if (!result.valid)
      problems.push(
        `the reply does not match the JSON schema: ${result.errors.map((error) => `${error.instanceLocation} ${error.error}`).join('; ')}`,
      );
  }
  return problems;
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}

/**
 * Asks the judge whether a reply meets a rubric: one chat completion that must answer the JSON
 * `{"pass": boolean, "reason": string}`. Rejects when the judge cannot be reached or answers otherwise.
 */
async function judgeReply(
  judge: EvalJudge,
  graded: { rubric: string; turns: readonly string[]; reply: string },
): Promise<{ pass: boolean; reason: string }> {
  const response = await fetch(`${judge.baseUrl.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(judge.apiKey !== undefined ? { Authorization: `Bearer ${judge.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: judge.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        {
          role: 'system',
          content:
            'You grade a chat assistant\'s reply against a rubric. Answer only the JSON object {"pass": true|false, "reason": "<one sentence>"}.',
        },
        {
          role: 'user',
          content: `Rubric: ${graded.rubric}\n\nUser turns:\n${graded.turns.map((turn) => `- ${turn}`).join('\n')}\n\nReply:\n${graded.reply}`,
        },
      ],
    }),
    signal: AbortSignal.timeout(60_000),
  });
  if (!response.ok) throw new Error(`the judge answered ${response.status}`);
  const content = ((await response.json()) as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message
    ?.content;
  let verdict: { pass?: unknown; reason?: unknown };
  try {
    verdict = JSON.parse(content ?? '');
  } catch {
    throw new Error(`the judge did not answer JSON: ${excerpt(content ?? '')}`);
  }
  if (typeof verdict.pass !== 'boolean')
    throw new Error(`the judge's answer has no boolean "pass": ${excerpt(content ?? '')}`);
  return { pass: verdict.pass, reason: typeof verdict.reason === 'string' ? verdict.reason : '' };
}
