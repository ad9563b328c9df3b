/** A fresh CSP nonce: 16 random bytes, base64. One per response. */
export function randomNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * Which pages may show a page of the actor in a frame: none (`none`), or those of its own origin
 * (`self`: a panel, which behind the platform's relay is served from the relay's origin).
 */
export type FrameAncestors = 'none' | 'self';

/** `X-Frame-Options`, for browsers without CSP `frame-ancestors`, matching each choice. */
const X_FRAME_OPTIONS: Record<FrameAncestors, string> = { none: 'DENY', self: 'SAMEORIGIN' };

/** The Content-Security-Policy of a page with no script or style of its own (the HTML index, the OAuth success page). */
export const STATIC_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'";

/**
 * The `Content-Security-Policy` (with `frame-ancestors`) and `X-Frame-Options` headers of an
 * HTML page, so that another site cannot frame it and trick a user into clicking it.
 * @param policy the page's own policy ('' for none), e.g. {@link STATIC_PAGE_POLICY}
 * @param ancestors who may frame it, `none` by default
 */
export function framedPageHeaders(policy: string, ancestors: FrameAncestors = 'none'): Record<string, string> {
  return {
    'Content-Security-Policy': [policy, `frame-ancestors '${ancestors}'`].filter(Boolean).join('; '),
    'X-Frame-Options': X_FRAME_OPTIONS[ancestors],
  };
}

/**
 * The headers of a self-contained HTML page: a strict Content-Security-Policy that runs only the
 * inline script and style carrying `nonce` and lets the page call its own origin, no caching,
 * and who may frame it (see {@link framedPageHeaders}).
 * @param nonce the response's nonce, see {@link randomNonce}
 * @param ancestors who may frame it, `none` by default
 */
export function htmlPageHeaders(nonce: string, ancestors: FrameAncestors = 'none'): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    ...framedPageHeaders(`default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'`, ancestors),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}
