/**
 * `actorkit/http`: the Fetch-level pieces the runtime answers HTTP with, for what sits in front
 * of actors (a gateway, a development proxy, an owner page): request ids, hop-by-hop headers,
 * foreign-origin checks, constant-time key checks and the HTML page shell with its CSP nonce.
 * @module actorkit/http
 */

// Requests and headers
export { requestIdFor } from '../app/request-id.js';
export { connectionScopedHeaders, withoutHopByHop } from '../core/hop-by-hop-headers.js';
export { isLoopbackHostname } from '../core/loopback-host.js';
export type { RuntimeBindings } from '../core/runtime-bindings.js';

// Who may call: origins and keys
export { hasForeignOrigin } from '../core/request-origin.js';
export { originNotAllowedError } from '../middleware/origin-check/index.js';
export { checkHeaderKey, constantTimeEqual, type HeaderKeyCheck } from '../core/header-key.js';

// HTML pages
export { basePageStyle, htmlPageHeaders, pageHead, randomNonce, type FrameAncestors } from '../core/html-page.js';

// The playground's one route served by `actorkit dev`, not by the app
export { PLAYGROUND_EVAL_CASES_PATH } from '../routes/playground-page.js';
