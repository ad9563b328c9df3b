import { expect } from 'vitest';

/** A run as `GET /agent/runs/{id}` shows it, the fields these tests read. */
export interface RunView {
  readonly id: string;
  readonly state: string;
  readonly last_seq: number;
  readonly problem?: { readonly code: string; readonly title: string; readonly detail?: string };
  readonly reply?: { readonly message: { readonly content: string } };
}

/** One part of a run's stream: its `id:` number and its `data:` JSON (`[DONE]` as the string). */
export interface StreamPart {
  readonly seq: number | undefined;
  readonly data: string;
}

/** Starts a background run (`"background": true`, 202) and returns it. */
export async function startBackgroundRun(baseUrl: string, session: string, message = 'count slowly'): Promise<RunView> {
  const response = await fetch(`${baseUrl}/agent/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_identifier: 'runs-user', session_id: session, message, background: true }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as RunView;
}

/** `GET /agent/runs/{id}`. */
export async function readRun(baseUrl: string, id: string): Promise<RunView> {
  const response = await fetch(`${baseUrl}/agent/runs/${id}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as RunView;
}

/** Polls the run every `pollMs` until `done(run)` or `timeoutMs`; resolves with the last read. */
export async function pollRun(
  baseUrl: string,
  id: string,
  done: (run: RunView) => boolean,
  timeoutMs: number,
  pollMs = 100,
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await readRun(baseUrl, id);
    if (done(run) || Date.now() > deadline) return run;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Reads `GET /agent/runs/{id}/stream?after=…` to its end (or `timeoutMs`) and returns its parts. */
export async function readRunStream(baseUrl: string, id: string, after = 0, timeoutMs = 15_000): Promise<StreamPart[]> {
  const response = await fetch(`${baseUrl}/agent/runs/${id}/stream?after=${after}`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  expect(response.status).toBe(200);
  return parseSse(await response.text());
}

/** The events of an SSE body. */
export function parseSse(body: string): StreamPart[] {
  return body
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) => {
      let seq: number | undefined;
      const data: string[] = [];
      for (const line of event.split('\n')) {
        if (line.startsWith('id: ')) seq = Number(line.slice(4));
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { seq, data: data.join('\n') };
    });
}
