import type { ChatRequest } from './chat-request.js';

/** True when the caller asks for the UI message stream: `"stream": true` or `Accept: text/event-stream`. */
export function wantsStream(request: ChatRequest, accept: string | undefined): boolean {
  if (request.stream !== undefined) return request.stream;
  return accept !== undefined && accept.split(',').some((type) => type.split(';', 1)[0]!.trim().toLowerCase() === 'text/event-stream');
}
