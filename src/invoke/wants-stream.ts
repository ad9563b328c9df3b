import { acceptNames } from '../core/accept-names.js';
import type { ChatRequest } from './chat-request.js';

/** True when the caller asks for the UI message stream: `"stream": true` or `Accept: text/event-stream`. */
export function wantsStream(request: ChatRequest, accept: string | undefined): boolean {
  if (request.stream !== undefined) return request.stream;
  return acceptNames(accept, 'text/event-stream');
}
