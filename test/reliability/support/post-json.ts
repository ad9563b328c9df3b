import { type Agent, request } from 'node:http';

/** An HTTP answer read whole. */
export interface PostAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** A request that got no HTTP answer: the socket error code (`ECONNREFUSED`, `ECONNRESET`, …) or `unanswered` after the time limit. */
export class NoAnswerError extends Error {
  constructor(readonly code: string) {
    super(`no HTTP answer: ${code}`);
    this.name = 'NoAnswerError';
  }
}

/**
 * POSTs a JSON body with node:http (so keep-alive reuse and socket errors are visible, unlike
 * `fetch`) and reads the whole answer. Rejects with `NoAnswerError` when the connection fails
 * or no answer arrives within `timeoutMs`.
 * @param agent the connection pool
 * @param url where to POST
 * @param body the JSON text
 * @param timeoutMs how long to wait for the whole answer
 */
export function postJson(agent: Agent, url: URL, body: string, timeoutMs = 15_000): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => {
          clearTimeout(timer);
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text });
        });
        incoming.on('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(new NoAnswerError(error.code ?? error.message));
        });
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new NoAnswerError('unanswered'));
    }, timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new NoAnswerError(error.code ?? error.message));
    });
    outgoing.end(body);
  });
}
