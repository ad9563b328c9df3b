import { html, raw } from 'hono/html';

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
 * and who may frame it (see `framedPageHeaders`).
 * @param nonce the response's nonce, see {@link randomNonce}
 * @param ancestors who may frame it, `none` by default
 */
export function htmlPageHeaders(nonce: string, ancestors: FrameAncestors = 'none'): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    ...framedPageHeaders(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'`,
      ancestors,
    ),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/**
 * The first rules of the stylesheet of every self-contained page (the panels, the local
 * platform's dashboard): the colour scheme, the font, a centred body and the header line.
 * @param maxWidth the body's largest width, e.g. `60rem`
 */
export function basePageStyle(maxWidth: string): string {
  return `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0 auto; max-width: ${maxWidth}; padding: 1.5rem; line-height: 1.4; }
  header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; }
  h1 { margin: 0; font-size: 1.5rem; }`;
}

/**
 * The `<head>` content of a self-contained page: charset, viewport, the (escaped) title, no
 * favicon request, and its one inline stylesheet carrying the response's CSP nonce.
 * @param title the page title
 * @param nonce the response's nonce, see {@link randomNonce}
 * @param style the page's stylesheet
 */
export function pageHead(title: string, nonce: string, style: string) {
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${raw(style)}</style>`;
}
