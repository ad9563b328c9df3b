import type { ChatEvent } from './chat-handler.js';
import type { ChatReply, FinishReason, ToolCallRecord } from './chat-reply.js';

/**
 * Response headers of the AI SDK UI message stream (`useChat` reads the marker header). No
 * hop-by-hop header (`Connection`, `Keep-Alive`): the server decides about the connection, and
 * honours a client's `Connection: close`.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Vercel-AI-UI-Message-Stream': 'v1',
  'X-Accel-Buffering': 'no',
};

const UI_FINISH_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
};

const encoder = new TextEncoder();

/** One part of the AI SDK UI message stream (`{type, …}`), JSON-serialisable. */
export type UiStreamPart = Readonly<Record<string, unknown>>;

/** Where a `UiMessageStreamWriter` puts its parts: a run, or a byte stream (`sseSink`). */
export interface UiPartSink {
  /** One part, in order. */
  part(part: UiStreamPart): void;
  /** No part follows. */
  end(): void;
}

/** The characters JSON leaves as they are that some SSE readers take for a line break (Python's `splitlines`). */
const LINE_BREAK_LOOKALIKES = /[\u0085\u2028\u2029]/g;

/**
 * JSON text as one SSE `data:` line: NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR, which `JSON.stringify`
 * leaves raw and a reader that splits lines as Python does would cut the event at, as `\uXXXX` escapes
 * (the same JSON value).
 * @param json the JSON text of one event
 */
export function sseData(json: string): string {
  return json.replace(LINE_BREAK_LOOKALIKES, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The SSE frame of one part (its JSON text); with `seq`, an `id:` line, so a client can resume after it. */
export function sseFrame(json: string, seq?: number): Uint8Array {
  const data = sseData(json);
  return encoder.encode(seq === undefined ? `data: ${data}\n\n` : `id: ${seq}\ndata: ${data}\n\n`);
}

/** The frame that ends a UI message stream. */
export const SSE_DONE: Uint8Array = encoder.encode('data: [DONE]\n\n');

/** A sink that writes parts as SSE frames onto a byte stream, ended by `data: [DONE]`; writes after the client left are ignored. */
function sseSink(controller: ReadableStreamDefaultController<Uint8Array>): UiPartSink {
  let closed = false;
  const send = (bytes: Uint8Array) => {
    if (closed) return;
    try {
      controller.enqueue(bytes);
    } catch {
      closed = true;
    }
  };
  return {
    part: (part) => send(sseFrame(JSON.stringify(part))),
    end: () => {
      send(SSE_DONE);
      if (closed) return;
      closed = true;
      try {
        controller.close();
      } catch {
        // Already closed or cancelled by the client.
      }
    },
  };
}

/**
 * Writes one reply as the AI SDK UI message stream protocol (v1) into a sink (a run, or an SSE
 * byte stream). Chat events become `start-step`, `text-start`/`text-delta`/`text-end`,
 * `tool-input-available` and `tool-output-available` (`tool-output-error` for a failed call,
 * `tool-output-denied` for a denied one; an approved call's output alone, in its earlier part);
 * the end is `data-usage`, `data-session` and `finish`, or `error`, or `abort`, or a `finish`
 * whose metadata says the run was cancelled. Nothing is written after the end.
 */
export class UiMessageStreamWriter {
  readonly #sink: UiPartSink;
  #closed = false;
  #step = false;
  #textId: string | undefined;
  #texts = 0;
  #sawText = false;

  constructor(sink: UiPartSink) {
    this.#sink = sink;
  }

  /** Opens the message (`messageId` when known); with `runId`, its metadata names the run (`run_id`), so a client cut off knows what to reconnect to. */
  start(messageId: string | undefined, runId?: string): void {
    this.#write(startPart(messageId, runId));
  }

  /** Writes what a chat handler reported. */
  event(event: ChatEvent): void {
    switch (event.type) {
      case 'step-start':
        this.#endStep();
        this.#write({ type: 'start-step' });
        this.#step = true;
        return;
      case 'text-delta':
        this.#text(event.delta);
        return;
      case 'tool-call':
        this.#endText();
        // The client has the approved call's part (from the stream that asked): its output goes there, as `streamText` sends it.
        if (event.decided === true) return;
        this.#write({
          type: 'tool-input-available',
          toolCallId: event.id,
          toolName: event.name,
          input: event.arguments,
          dynamic: true,
        });
        return;
      case 'tool-result':
        // AI SDK 6's part for a denied call: `useChat` shows it `output-denied`.
        if (event.denied === true) this.#write({ type: 'tool-output-denied', toolCallId: event.record.id });
        else this.#toolResult(event.record);
        return;
      case 'tool-approval-request':
        // AI SDK 6's part: `useChat` shows the call `approval-requested` until `addToolApprovalResponse`.
        this.#write({ type: 'tool-approval-request', approvalId: event.approvalId, toolCallId: event.toolCallId });
        return;
    }
  }

  /** Ends the message with its usage, its session and `finish`. Text the handler did not stream is sent here in one piece. */
  finish(reply: ChatReply): void {
    if (!this.#sawText && reply.message.content !== '') this.#text(reply.message.content);
    this.#endStep();
    this.#write({ type: 'data-usage', data: reply.usage });
    this.#write({
      type: 'data-session',
      data: {
        session_id: reply.session_id,
        invocation_id: reply.id,
        model: reply.model,
        ...(reply.metadata ? { metadata: reply.metadata } : {}),
      },
    });
    this.#write({ type: 'finish', finishReason: UI_FINISH_REASONS[reply.finish_reason] });
    this.#done();
  }

  /** Sends a whole stored reply (an idempotent replay) as a stream. */
  replay(reply: ChatReply): void {
    this.start(reply.message.id);
    this.replayAfterStart(reply);
  }

  /** Sends a whole stored reply after its `start`. */
  replayAfterStart(reply: ChatReply): void {
    this.event({ type: 'step-start' });
    for (const record of reply.tool_calls) {
      this.event({ type: 'tool-call', id: record.id, name: record.name, arguments: record.arguments });
      this.#toolResult(record);
    }
    this.finish(reply);
  }

  /** Ends the message with an `error` frame. */
  error(errorText: string): void {
    this.#endText();
    this.#write({ type: 'error', errorText });
    this.#done();
  }

  /** Ends the message with an `abort` frame (the actor is shutting down). */
  abort(): void {
    this.#write({ type: 'abort' });
    this.#done();
  }

  /** Ends the message with a `finish` whose metadata says the run was cancelled (`run_state: "cancelled"`). */
  cancelled(runId: string): void {
    this.#endStep();
    this.#write({ type: 'finish', finishReason: 'other', messageMetadata: { run_id: runId, run_state: 'cancelled' } });
    this.#done();
  }

  #toolResult(record: ToolCallRecord): void {
    if (record.status === 'ok')
      this.#write({ type: 'tool-output-available', toolCallId: record.id, output: record.output, dynamic: true });
    else
      this.#write({
        type: 'tool-output-error',
        toolCallId: record.id,
        errorText: record.error ?? 'The tool failed',
        dynamic: true,
      });
  }

  #text(delta: string): void {
    if (this.#textId === undefined) {
      this.#texts += 1;
      this.#textId = `text_${this.#texts}`;
      this.#write({ type: 'text-start', id: this.#textId });
    }
    this.#sawText = true;
    this.#write({ type: 'text-delta', id: this.#textId, delta });
  }

  #endText(): void {
    if (this.#textId === undefined) return;
    this.#write({ type: 'text-end', id: this.#textId });
    this.#textId = undefined;
  }

  #endStep(): void {
    this.#endText();
    if (!this.#step) return;
    this.#write({ type: 'finish-step' });
    this.#step = false;
  }

  #done(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sink.end();
  }

  #write(part: UiStreamPart): void {
    if (!this.#closed) this.#sink.part(part);
  }
}

/** The `start` part: `messageId` when known; with `runId`, its metadata names the run (`run_id`). */
export function startPart(messageId: string | undefined, runId?: string): UiStreamPart {
  const part: Record<string, unknown> = { type: 'start' };
  if (messageId !== undefined) part.messageId = messageId;
  if (runId !== undefined) part.messageMetadata = { run_id: runId };
  return part;
}

/** The code of the problem a run ends with when the actor stopped before it finished (its stream ends with `abort`). */
export const RUNNER_STOPPED = 'runner_stopped';

/** The problem a run failed with, as an `error` part says it: `code: detail` (the title when there is no detail). */
export function problemErrorText(problem: {
  readonly code: string;
  readonly title: string;
  readonly detail?: string | undefined;
}): string {
  return `${problem.code}: ${problem.detail ?? problem.title}`;
}

/** How a run ended, as its row keeps it: enough to tell its stream when its parts were not kept. */
export interface RunEnding {
  readonly runId: string;
  readonly state: string;
  readonly reply?: ChatReply;
  readonly problem?: { readonly code: string; readonly title: string; readonly detail?: string };
}

/**
 * The parts of a run whose events nobody watched (a JSON invoke's): its `start` (naming the run,
 * the part such a run writes as it begins), then the rest told from its end, the same every
 * time — the reply replayed; or `finish` saying it was cancelled, `abort` for a shutdown,
 * `error` with the problem.
 */
export function impliedRunParts(ending: RunEnding): UiStreamPart[] {
  const parts: UiStreamPart[] = [];
  const writer = new UiMessageStreamWriter({ part: (part) => parts.push(part), end: () => {} });
  writer.start(undefined, ending.runId);
  if (ending.reply !== undefined) {
    writer.replayAfterStart(ending.reply);
    return parts;
  }
  const problem = ending.problem ?? { code: 'internal_error', title: 'Internal error' };
  if (ending.state === 'cancelled') writer.cancelled(ending.runId);
  else if (problem.code === RUNNER_STOPPED) writer.abort();
  else writer.error(problemErrorText(problem));
  return parts;
}

/** A stored reply as a UI message stream of its own, for a completed `Idempotency-Key` retry that asks for a stream. */
export function replayStream(reply: ChatReply): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      new UiMessageStreamWriter(sseSink(controller)).replay(reply);
    },
  });
}
