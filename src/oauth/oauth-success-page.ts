import { html } from 'hono/html';
import { framedPageHeaders, STATIC_PAGE_POLICY } from '../core/html-page.js';

/**
 * The small page shown after a successful callback without `return_to`. It carries no script
 * and no token; its CSP forbids everything.
 * @param providerTitle the provider's display name
 */
export async function oauthSuccessPage(providerTitle: string): Promise<Response> {
  const page = await html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connected</title></head>
<body><main><h1>Connected to ${providerTitle}</h1><p>You can close this window.</p></main></body>
</html>
`;
  return new Response(page.toString(), {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      ...framedPageHeaders(STATIC_PAGE_POLICY),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
