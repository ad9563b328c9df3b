import { Agent } from 'node:http';
import { INVOKE_PATH } from '../../src/features/invoke/invoke-route.js';
import { postJson } from '../../test/reliability/support/post-json.js';

/** How a fixed number of invokes went. */
export interface InvokeTally {
  /** Replies with status 200. */
  readonly ok: number;
  /** Other statuses, by status code. */
  readonly otherStatuses: Readonly<Record<number, number>>;
  /** Requests that got no HTTP answer (reset, refused, hang-up). */
  readonly socketErrors: number;
}

/** A chat request body for turn `turn`: 200 sessions of 50 users, as bench/load/wrk-cell.lua sends. */
export function benchChatRequest(turn: number): string {
  return JSON.stringify({
    user_identifier: `bench-user-${turn % 50}`,
    session_id: `bench-session-${turn % 200}`,
    message: `Hello from the bench, turn ${turn}`,
  });
}

/**
 * Sends exactly `count` chat requests to `POST /agent/invoke` over `concurrency` keep-alive
 * connections and tallies the answers. Used where a run must be counted, not timed (memory
 * after 10,000 invokes), so every figure it returns is exact.
 * @param baseUrl the server, e.g. `http://127.0.0.1:8080`
 * @param count how many requests to send
 * @param concurrency how many are outstanding at once
 */
export async function sendInvokes(baseUrl: string, count: number, concurrency: number): Promise<InvokeTally> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(INVOKE_PATH, baseUrl);
  let next = 0;
  let ok = 0;
  let socketErrors = 0;
  const otherStatuses: Record<number, number> = {};
  const worker = async () => {
    while (next < count) {
      next += 1;
      try {
        const { status } = await postJson(agent, url, benchChatRequest(next));
        if (status === 200) ok += 1;
        else otherStatuses[status] = (otherStatuses[status] ?? 0) + 1;
      } catch {
        socketErrors += 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { ok, otherStatuses, socketErrors };
}
