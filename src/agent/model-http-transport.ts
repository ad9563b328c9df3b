/** One POST of a JSON body to a model server. */
export interface ModelHttpRequest {
  readonly url: URL;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the request. */
  readonly body: string;
  /** Aborts the request, the wait for the answer and the read of its body. */
  readonly signal: AbortSignal;
}

/** A model server's answer, read whole. */
export interface ModelHttpAnswer {
  readonly status: number;
  /** The value of a response header, by its lower-case name. */
  header(name: string): string | undefined;
  readonly body: string;
}

/**
 * Sends one request to a model server and reads its whole answer; rejects when the server
 * cannot be reached, the connection breaks before the answer ends, or the signal aborts.
 */
export type ModelHttpTransport = (request: ModelHttpRequest) => Promise<ModelHttpAnswer>;

/**
 * The transport over a Fetch API `fetch` (the global one unless given): what every runtime has.
 * @param fetchFunction the `fetch` to call; the global one, looked up on each call, by default
 */
export function fetchModelTransport(fetchFunction?: typeof fetch): ModelHttpTransport {
  return async function postOverFetch({ url, headers, body, signal }) {
    const response = await (fetchFunction ?? fetch)(url, { method: 'POST', headers, body, signal });
    const text = await response.text();
    return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, body: text };
  };
}
