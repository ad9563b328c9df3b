// Runs test/a2a-python/a2a_client.py, the official Python A2A client `a2a-sdk` 1.1, in the
// virtual environment venv.sh makes from the wheels kept in the repository (issue #39).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);
const HERE = import.meta.dirname;

/** The A2A protocol bindings the Python client can be told to use. */
export type PythonA2aBinding = 'JSONRPC' | 'HTTP+JSON';

/** What the Python client saw of one send or subscription: the task's id, its states in order, its text, the kinds of its events. */
export interface PythonA2aSeen {
  task_id: string | null;
  states: string[];
  text: string;
  kinds: string[];
}

/** A step A2A refused because its task had ended first (an agent that answers at once): the SDK's error name. */
export interface PythonA2aRefused {
  refused: string;
  detail?: string;
}

/** What a2a_client.py prints: what the client saw of the card, a send, a stream, a get, a subscription and a cancel. */
export interface PythonA2aReport {
  card: { name: string; skills: string[]; streaming: boolean; bindings: string[] };
  sent: PythonA2aSeen;
  streamed: PythonA2aSeen;
  got: { id: string; state: string; context_id: string };
  /** A subscription to a streamed task the client left after its first text. */
  subscribed: PythonA2aSeen | PythonA2aRefused;
  cancelled: { before: string[] } & ({ after: string } | PythonA2aRefused);
  missing: string;
}

/**
 * Makes (once per machine) the client's virtual environment and resolves with its python. The
 * wheels it needs are in the repository, so a failure is a broken install, never a reason to skip.
 */
export async function pythonA2aInterpreter(): Promise<string> {
  return (await run(join(HERE, 'venv.sh'), [], { encoding: 'utf8' })).stdout.trim();
}

/**
 * Drives an A2A agent with the Python client; rejects with the process's error (its `stderr`
 * holds the client's own exception) when the client fails.
 * @param python the interpreter {@link pythonA2aInterpreter} resolved with
 * @param url the agent's base URL: the card is at `<url>/.well-known/agent-card.json`
 * @param binding the binding the client is to pick from the card
 * @param key the value of the `X-API-Key` header every request carries
 */
export async function runPythonA2aClient(
  python: string,
  url: string,
  binding: PythonA2aBinding,
  key?: string,
): Promise<PythonA2aReport> {
  const args = [join(HERE, 'a2a_client.py'), url, binding, ...(key === undefined ? [] : [key])];
  const { stdout } = await run(python, args, { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(stdout) as PythonA2aReport;
}

/**
 * Asserts what a report of a slow agent shows when every step worked: the sent and streamed task
 * completed with the whole answer, the get of the streamed task, a subscription that opens with
 * the task as it is (working, its text so far) and then brings the rest, each word once, a cancel
 * of a task in progress, and "task not found".
 * @param report what {@link runPythonA2aClient} resolved with
 * @param expectAnswer asserts that a text the client read is the agent's whole answer
 */
export function expectEveryStepWorked(report: PythonA2aReport, expectAnswer: (text: string) => void): void {
  expect(report.sent.states.at(-1)).toBe('TASK_STATE_COMPLETED');
  expectAnswer(report.sent.text);
  expect(report.streamed.kinds[0]).toBe('task');
  expect(report.streamed.kinds).toContain('artifact_update');
  expectAnswer(report.streamed.text);
  expect(report.streamed.states.at(-1)).toBe('TASK_STATE_COMPLETED');
  expect(report.got).toMatchObject({ id: report.streamed.task_id, state: 'TASK_STATE_COMPLETED' });
  expect(report.subscribed).not.toHaveProperty('refused');
  const subscribed = report.subscribed as PythonA2aSeen;
  expect(subscribed.kinds[0]).toBe('task');
  expect(subscribed.kinds.filter((kind) => kind === 'task')).toHaveLength(1);
  expect(subscribed.states[0]).toBe('TASK_STATE_WORKING');
  expect(subscribed.states.at(-1)).toBe('TASK_STATE_COMPLETED');
  expectAnswer(subscribed.text);
  expect(report.cancelled).toEqual({ before: ['TASK_STATE_WORKING'], after: 'TASK_STATE_CANCELED' });
  expect(report.missing).toMatch(/NotFound/);
}
