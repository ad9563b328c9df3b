/** A fresh CSP nonce: 16 random bytes, base64. One per response. */
export function randomNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * The headers of a self-contained HTML page: a strict Content-Security-Policy that runs only the
 * inline script and style carrying `nonce` and lets the page call its own origin, no caching.
 * @param nonce the response's nonce, see {@link randomNonce}
 */
export function htmlPageHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}
