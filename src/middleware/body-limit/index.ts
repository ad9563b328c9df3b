import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { ActorError } from '../../core/actor-error.js';

/** Options of `limitRequestBody`. */
export interface LimitRequestBodyOptions {
  /** The largest body accepted, in bytes. */
  readonly maxSize: number;
  /** Answers an oversized body; the default throws the 413 `payload_too_large` problem. */
  readonly onError?: (c: Context) => Response | Promise<Response>;
}

/**
 * Refuses request bodies over `maxSize` bytes. A body that declares its `Content-Length` is
 * judged by the header alone, without touching `request.body`: on Node that keeps
 * `@hono/node-server`'s light request (whose `text()` reads the socket directly) from being
 * turned into a full Fetch `Request` with its own stream and signal, which cost about a tenth of
 * an invoke. A chunked body, which has no length, is counted as it is read by Hono's `bodyLimit`.
 * @example
 * app.use('/agent/*', limitRequestBody({ maxSize: 1_048_576 }));
 */
export function limitRequestBody(options: LimitRequestBodyOptions): MiddlewareHandler {
  const { maxSize } = options;
  const onError =
    options.onError ??
    (() => {
      throw new ActorError('payload_too_large', { detail: `The body must be at most ${maxSize} bytes` });
    });
  const countWhileReading = honoBodyLimit({ maxSize, onError });
  return async function limitBody(c, next) {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number.parseInt(declared, 10) > maxSize) return onError(c);
      return next();
    }
    return countWhileReading(c, next);
  };
}
