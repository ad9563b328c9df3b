/**
 * The chat turns the gateway answered successfully, per instance and tenant, and how many are
 * under way: what reconciliation compares the replicas' `/stats` with. Counted once per
 * successful turn, whichever way it came (REST JSON, REST stream, the MCP tool `chat`); a reply
 * replayed for a retried `Idempotency-Key` is not a new turn and is not counted.
 */
export class AnsweredInvokes {
  readonly #answered = new Map<string, Map<string, number>>();
  readonly #inFlight = new Map<string, number>();

  /** One more successful turn of `tenant` at the instance `ref`. */
  add(ref: string, tenant: string, count = 1): void {
    const tenants = this.#answered.get(ref) ?? new Map<string, number>();
    tenants.set(tenant, (tenants.get(tenant) ?? 0) + count);
    this.#answered.set(ref, tenants);
  }

  /** Marks a turn as started: until `settle`, a `/stats` read may already count it. */
  begin(ref: string): void {
    this.#inFlight.set(ref, (this.#inFlight.get(ref) ?? 0) + 1);
  }

  /** Marks a turn `begin` started as answered, failed or abandoned. */
  settle(ref: string): void {
    this.#inFlight.set(ref, Math.max(0, (this.#inFlight.get(ref) ?? 0) - 1));
  }

  /** Turns under way at the instance. */
  inFlight(ref: string): number {
    return this.#inFlight.get(ref) ?? 0;
  }

  /** Successful turns the instance answered, all tenants, or one tenant's. */
  answered(ref: string, tenant?: string): number {
    const tenants = this.#answered.get(ref);
    if (tenants === undefined) return 0;
    if (tenant !== undefined) return tenants.get(tenant) ?? 0;
    let total = 0;
    for (const count of tenants.values()) total += count;
    return total;
  }

  /** The tenants the instance answered turns for. */
  tenants(ref: string): string[] {
    return [...(this.#answered.get(ref)?.keys() ?? [])];
  }
}

/** Whether an SSE line is the UI message stream's `error` part, or AG-UI's `RUN_ERROR`. */
const isErrorFrame = (line: string): boolean =>
  line.startsWith('data:') && /^data:\s*\{\s*"type"\s*:\s*"(error|RUN_ERROR)"/.test(line);
/** Whether an SSE line is the UI message stream's `finish` part, or AG-UI's `RUN_FINISHED`. */
const isFinishFrame = (line: string): boolean =>
  line.startsWith('data:') && /^data:\s*\{\s*"type"\s*:\s*"(finish|RUN_FINISHED)"/.test(line);

/**
 * A copy of an SSE body that passes every chunk on as it comes, shows each whole line to
 * `onLine`, and tells `onEnd` once: `true` when the stream ended, `false` when it failed or the
 * client went away.
 * @param body the replica's SSE body
 * @param onLine sees each line
 * @param onEnd told once
 */
function watchSseLines(
  body: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  onEnd: (ended: boolean) => void,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  let told = false;
  const tell = (ended: boolean) => {
    if (told) return;
    told = true;
    onEnd(ended);
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          tell(true);
          return;
        }
        const lines = (pending + decoder.decode(value, { stream: true })).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) onLine(line);
        controller.enqueue(value);
      } catch (error) {
        tell(false);
        controller.error(error);
      }
    },
    async cancel(reason) {
      tell(false);
      await reader.cancel(reason);
    },
  });
}

/**
 * A copy of a UI message stream that passes every chunk on as it comes and, once the stream has
 * ended, calls `onEnd(true)` when it carried a `finish` part and no `error` part; `onEnd(false)`
 * when it failed, carried an error or the client went away.
 * @param body the replica's SSE body
 * @param onEnd told once how the turn ended
 */
export function watchChatStream(
  body: ReadableStream<Uint8Array>,
  onEnd: (succeeded: boolean) => void,
): ReadableStream<Uint8Array> {
  let finished = false;
  let failed = false;
  return watchSseLines(
    body,
    (line) => {
      if (isErrorFrame(line)) failed = true;
      else if (isFinishFrame(line)) finished = true;
    },
    (ended) => onEnd(ended && finished && !failed),
  );
}

/** A JSON-RPC message, as far as counting needs it. */
interface RpcMessage {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown };
  readonly result?: { readonly isError?: unknown };
}

const asMessages = (value: unknown): RpcMessage[] =>
  (Array.isArray(value) ? value : [value]).filter(
    (message): message is RpcMessage => typeof message === 'object' && message !== null,
  );

/**
 * The JSON-RPC ids of the `tools/call` requests for the MCP tool `chat` in a request body to
 * `/mcp` (one message or a batch); none when the body is not JSON.
 * @param body the request body as sent
 */
export function mcpChatCallIds(body: string): unknown[] {
  try {
    return asMessages(JSON.parse(body))
      .filter(
        (message) => message.method === 'tools/call' && message.params?.name === 'chat' && message.id !== undefined,
      )
      .map((message) => message.id);
  } catch {
    return [];
  }
}

/**
 * How many of the `chat` calls `ids` named succeeded in an `/mcp` answer: the JSON-RPC results
 * with those ids and no `isError`. Reads a clone, so the client's copy stays unread.
 * @param answer the replica's response (JSON, as the actor's stateless transport answers)
 * @param ids the ids of the `chat` calls, from `mcpChatCallIds`
 */
export async function succeededMcpChats(answer: Response, ids: readonly unknown[]): Promise<number> {
  if (ids.length === 0 || !answer.ok || !(answer.headers.get('content-type') ?? '').includes('application/json'))
    return 0;
  try {
    const messages = asMessages(await answer.clone().json());
    return messages.filter(
      (message) => ids.includes(message.id) && message.result !== undefined && message.result.isError !== true,
    ).length;
  } catch {
    return 0;
  }
}

/** The A2A JSON-RPC methods that send a message, so start a run (A2A 1.0's names, and 0.3's). */
const A2A_SEND_METHODS: readonly unknown[] = ['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream'];

/**
 * Whether a request body to the actor's A2A JSON-RPC binding sends a message (so starts a run
 * to count); false when it is not JSON.
 * @param body the request body as sent
 */
export function a2aSendsMessage(body: string): boolean {
  try {
    return asMessages(JSON.parse(body)).some((message) => A2A_SEND_METHODS.includes(message.method));
  } catch {
    return false;
  }
}

/** The task id a JSON-RPC answer (or one streamed event) of A2A names: its task's, or that of a status or artifact update. */
function a2aTaskIdOf(message: unknown): string | undefined {
  const result = (message as { result?: Record<string, { id?: unknown; taskId?: unknown } | undefined> } | null)
    ?.result;
  const id = result?.task?.id ?? result?.statusUpdate?.taskId ?? result?.artifactUpdate?.taskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The task id of the replica's JSON answer to an A2A send (the run it started), undefined for an
 * error or an answer that is not JSON. Reads a clone, so the client's copy stays unread.
 * @param answer the replica's response
 */
export async function a2aTaskIdOfAnswer(answer: Response): Promise<string | undefined> {
  if (!answer.ok) return undefined;
  try {
    return a2aTaskIdOf(await answer.clone().json());
  } catch {
    return undefined;
  }
}

/**
 * Passes an A2A SSE answer through unchanged, telling `onTaskId` once the task id of the first
 * event that names one (the run the send started), or undefined when the stream ends or breaks
 * without one.
 * @param body the replica's SSE body
 * @param onTaskId told once
 */
export function watchA2aTaskId(
  body: ReadableStream<Uint8Array>,
  onTaskId: (taskId: string | undefined) => void,
): ReadableStream<Uint8Array> {
  let taskId: string | undefined;
  let told = false;
  const tell = (id: string | undefined) => {
    if (told) return;
    told = true;
    onTaskId(id);
  };
  return watchSseLines(
    body,
    (line) => {
      if (taskId !== undefined || !line.startsWith('data:')) return;
      try {
        taskId = a2aTaskIdOf(JSON.parse(line.slice('data:'.length)));
      } catch {
        // Not JSON: not an A2A event.
      }
      if (taskId !== undefined) tell(taskId);
    },
    () => tell(undefined),
  );
}
