/** The fields DESIGN §3 allows in a problem+json body. */
const PROBLEM_KEYS = new Set(['type', 'title', 'status', 'detail', 'code', 'request_id', 'errors']);
const SNAKE_CASE_CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** What hono's request-id middleware accepts or generates (a UUID). */
const REQUEST_ID = /^[\w\-=]{1,128}$/;
const STACK_FRAME = /\bat .+:\d+:\d+/;

/** A response as the invariants see it, from `fetch`/`app.request` or parsed off a raw socket. */
export interface ObservedResponse {
  readonly status: number;
  /** Header lookup, case-insensitive. */
  header(name: string): string | null;
  readonly body: string;
}

/** Adapts a Fetch `Response` whose body was read into `body`. */
export function observe(response: Response, body: string): ObservedResponse {
  return { status: response.status, header: (name) => response.headers.get(name), body };
}

/** Statuses Node's HTTP parser answers by itself (no body, no X-Request-Id) for bytes that are not a request. */
export const PARSER_REJECTIONS: readonly number[] = [400, 408, 413, 414, 431];

function fail(message: string, response: ObservedResponse): never {
  throw new Error(
    `${message}\n  status ${response.status}, content-type ${response.header('content-type')}\n  body ${response.body.slice(0, 500)}`,
  );
}

/**
 * Checks the runtime's promises for any answer to any request, however bad: never a 5xx,
 * and everything `assertWellFormedAnswer` checks. Throws, naming the broken promise, on the
 * first one that does not hold.
 * @param response the answer
 * @param method the request method (a HEAD answer has no body to check)
 */
export function assertResponseInvariants(response: ObservedResponse, method: string): void {
  if (response.status >= 500) fail('a 5xx answer', response);
  assertWellFormedAnswer(response, method);
}

/**
 * Checks the form of an answer of any status: always an `X-Request-Id`, and every error an
 * RFC 9457 problem+json with exactly the documented fields (`type`, `title`, `status` equal
 * to the HTTP status, snake_case `code`, `request_id` equal to the header, optional `detail`
 * and `errors: [{pointer, detail}]`), no stack trace, `WWW-Authenticate` on 401 and `Allow`
 * on 405.
 * @param response the answer
 * @param method the request method (a HEAD answer has no body to check)
 */
export function assertWellFormedAnswer(response: ObservedResponse, method: string): void {
  const requestId = response.header('x-request-id');
  if (requestId === null || !REQUEST_ID.test(requestId))
    fail(`X-Request-Id missing or malformed: ${JSON.stringify(requestId)}`, response);
  if (response.status === 401 && !response.header('www-authenticate')) fail('401 without WWW-Authenticate', response);
  if (response.status === 405 && !response.header('allow')) fail('405 without Allow', response);
  if (response.status < 400) return;
  if (!(response.header('content-type') ?? '').startsWith('application/problem+json'))
    fail('an error that is not application/problem+json', response);
  if (method === 'HEAD') return;
  if (STACK_FRAME.test(response.body)) fail('a stack trace in an error body', response);
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    fail('a problem body that is not JSON', response);
  }
  for (const key of Object.keys(problem))
    if (!PROBLEM_KEYS.has(key)) fail(`an undocumented problem field ${key}`, response);
  if (typeof problem.type !== 'string' || problem.type === '') fail('problem.type missing', response);
  if (typeof problem.title !== 'string' || problem.title === '') fail('problem.title missing', response);
  if (problem.status !== response.status) fail('problem.status differs from the HTTP status', response);
  if (typeof problem.code !== 'string' || !SNAKE_CASE_CODE.test(problem.code))
    fail('problem.code missing or not snake_case', response);
  if (problem.request_id !== requestId) fail('problem.request_id differs from X-Request-Id', response);
  if (problem.detail !== undefined && typeof problem.detail !== 'string')
    fail('problem.detail is not a string', response);
  if (problem.errors !== undefined) {
    if (!Array.isArray(problem.errors) || problem.errors.length === 0)
      fail('problem.errors is not a non-empty array', response);
    for (const entry of problem.errors as unknown[]) {
      const { pointer, detail } = (entry ?? {}) as Record<string, unknown>;
      if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/')) || typeof detail !== 'string') {
        fail(`a malformed errors entry ${JSON.stringify(entry)}`, response);
      }
    }
  }
}

/**
 * Like `assertResponseInvariants`, but also accepts an answer of the server's HTTP parser
 * (a bare 400/408/413/414/431 without X-Request-Id) to bytes that never became a request.
 * @param response the answer read off a raw socket
 * @param method the request method
 */
export function assertRawAnswerInvariants(response: ObservedResponse, method: string): void {
  if (response.header('x-request-id') === null && PARSER_REJECTIONS.includes(response.status)) return;
  assertResponseInvariants(response, method);
}
