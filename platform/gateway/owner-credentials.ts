import { constantTimeEqual } from '../../src/http/index.js';
import { ActorError } from '../../src/index.js';
import { EDGE_KEY_HEADER } from './edge-keys.js';

/** The cookie the dashboard's login sets: the owner token, `HttpOnly`, `SameSite=Strict`. */
const OWNER_COOKIE = 'actorkit_platform_owner';

/** A fresh owner token: 32 random bytes, base64url. */
export function generateOwnerToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The owner credential a request carries: `Authorization: Bearer <token>` first, else the owner cookie. */
export function ownerCredentialOf(request: Request): string | undefined {
  const authorization = request.headers.get('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return bearer ?? cookieValue(request.headers.get('cookie'), OWNER_COOKIE);
}

/**
 * Refuses a request without the owner's credentials: 401 `missing_owner_credentials` when it
 * carries none (an edge key alone is none, and the detail says so), 401
 * `invalid_owner_credentials` when the token or cookie is not the owner's.
 * @param request the request
 * @param token the platform's owner token
 */
export function requireOwner(request: Request, token: string): void {
  const given = ownerCredentialOf(request);
  const challenge = { 'WWW-Authenticate': 'Bearer realm="actorkit platform"' };
  if (given === undefined || given === '') {
    const withEdgeKey = request.headers.has(EDGE_KEY_HEADER);
    throw new ActorError('missing_owner_credentials', {
      detail: withEdgeKey
        ? `An edge key (${EDGE_KEY_HEADER}) opens only the external edge; this needs the owner token (Authorization: Bearer) or the dashboard's cookie`
        : "Send the owner token the platform printed as 'Authorization: Bearer <token>', or log in to the dashboard",
      headers: challenge,
    });
  }
  if (!constantTimeEqual(given, token)) {
    throw new ActorError('invalid_owner_credentials', {
      detail:
        "The owner token or cookie is not this platform's (it changes on every start unless one is configured); log in again",
      headers: challenge,
    });
  }
}

/**
 * The `Set-Cookie` header that logs the owner in: the token, for every path, `HttpOnly` (no
 * script reads it), `SameSite=Strict` (no other site's page sends it).
 * @param token the owner token
 */
export function ownerCookie(token: string): string {
  return `${OWNER_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
