import { html, raw } from 'hono/html';

// Runs in the browser. The document and every file come from the actor, by URLs relative to
// the page (it works behind a relay under a path prefix); the validator badge, which Swagger UI
// would fetch from validator.swagger.io, is off.
const SWAGGER_UI_SCRIPT = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', location.href).href,
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: true,
  displayRequestDuration: true,
});`;

/**
 * The `/docs` page when Swagger UI is installed: the interactive reference of `/openapi.json`
 * with try-it. Its files come from `/docs?asset=…`, each tag carrying the response's nonce.
 * @param options the actor's name (the title) and the response's CSP nonce
 */
export async function renderSwaggerUiPage({ name, nonce }: { name: string; nonce: string }): Promise<string> {
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${name} — API</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="docs?asset=swagger-ui.css" nonce="${nonce}">
</head><body><div id="swagger-ui"></div>
<script src="docs?asset=swagger-ui-bundle.js" nonce="${nonce}"></script>
<script nonce="${nonce}">${raw(SWAGGER_UI_SCRIPT)}</script>
</body></html>`;
  return String(await page);
}
