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

/**
 * Writes one reply as the AI SDK UI message stream protocol (v1) onto a byte stream: SSE
 * frames `data: {json}`, ended by `data: [DONE]`. Chat events become `start-step`,
 * `text-start`/`text-delta`/`text-end`, `tool-input-available` and `tool-output-available`
 * (`tool-output-error` for a failed call); the end is `data-usage`, `data-session` and
 * `finish`, or `error`, or `abort`. Writes after the client left are ignored.
 */
export class UiMessageStreamWriter {
  readonly #controller: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #step = false;
  #textId: string | undefined;
  #texts = 0;
  #sawText = false;

  constructor(controller: ReadableStreamDefaultController<Uint8Array>) {
    this.#controller = controller;
  }

  /** Opens the message. */
  start(messageId: string): void {
    this.#write({ type: 'start', messageId });
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
        this.#write({
          type: 'tool-input-available',
          toolCallId: event.id,
          toolName: event.name,
          input: event.arguments,
          dynamic: true,
        });
        return;
      case 'tool-result':
        this.#toolResult(event.record);
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

  /** Stops writing: the client went away. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller.close();
    } catch {
      // Already closed or cancelled by the client.
    }
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
    this.#send('data: [DONE]\n\n');
    this.close();
  }

  #write(chunk: Record<string, unknown>): void {
    this.#send(`data: ${JSON.stringify(chunk)}\n\n`);
  }

  #send(frame: string): void {
    if (this.#closed) return;
    try {
      this.#controller.enqueue(encoder.encode(frame));
    } catch {
      this.#closed = true;
    }
  }
}
