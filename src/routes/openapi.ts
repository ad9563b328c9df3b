import { ActorError } from '../core/actor-error.js';
import { framedPageHeaders, htmlPageHeaders, randomNonce } from '../core/html-page.js';
import { defineRoute } from '../route-kit/actor-route.js';
import { json, problem } from '../route-kit/openapi-parts.js';
import { openApiDocument } from './openapi-document.js';
import {
  SWAGGER_UI_ASSETS,
  SWAGGER_UI_PACKAGE,
  type SwaggerUiAssetName,
  swaggerUiLoader,
} from './swagger-ui-assets.js';
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
async function renderSwaggerUiPage({ name, nonce }: { name: string; nonce: string }): Promise<string> {
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

/** The `/docs` page without Swagger UI: a read-only list of the operations. */
const DOCS_LIST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .3em}
h2{font-size:1.1rem;margin-top:1.5rem}.m{display:inline-block;min-width:4em;font-weight:600}</style></head>
<body><h1 id="title">API</h1><p>Machine-readable description: <a href="openapi.json">openapi.json</a></p><div id="ops"></div>
<script>
fetch('openapi.json').then(r=>r.json()).then(doc=>{
  document.getElementById('title').textContent=doc.info.title+' '+doc.info.version;
  const ops=document.getElementById('ops');
  for(const [path,methods] of Object.entries(doc.paths))for(const [method,op] of Object.entries(methods)){
    const h=document.createElement('h2');const m=document.createElement('span');m.className='m';m.textContent=method.toUpperCase();
    const c=document.createElement('code');c.textContent=path;h.append(m,' ',c);
    const p=document.createElement('p');p.textContent=op.summary+' — responses: '+Object.keys(op.responses).join(', ');
    ops.append(h,p);
  }
});
</script></body></html>`;

/** `GET /openapi.json`: the OpenAPI 3.2 document of every mounted route, built on first use after start. */
export const openApiRoute = defineRoute(
  {
    method: 'get',
    path: '/openapi.json',
    security: 'open',
    contract: 'always',
    operation: {
      operationId: 'openApi',
      summary: 'This OpenAPI 3.2 document',
      responses: { 200: json('OpenAPI 3.2 of every mounted route') },
    },
  },
  (ctx, { operations }) => {
    let document: Record<string, unknown> | undefined;
    return function openApi(c) {
      // Kept once the actor has started: a router's operations may read what its start loads (the MCP SDK's message schema).
      const built = document ?? openApiDocument(ctx, operations());
      if (ctx.lifecycle.phase !== 'starting') document = built;
      return c.json(built);
    };
  },
);

/**
 * `GET /docs`: the interactive reference of `/openapi.json` (Swagger UI, with try-it and the
 * API key the user enters) when the optional `swagger-ui-dist` is installed, its files served by
 * the actor itself at `/docs?asset=…`; otherwise a read-only list of the operations. Nothing is
 * fetched from elsewhere.
 */
export const docsRoute = defineRoute(
  {
    method: 'get',
    path: '/docs',
    security: 'open',
    contract: 'always',
    operation: {
      operationId: 'docs',
      summary: `The interactive reference of this document (Swagger UI when ${SWAGGER_UI_PACKAGE} is installed, else a list); no external assets`,
      parameters: [
        {
          name: 'asset',
          in: 'query',
          required: false,
          description: `A file of Swagger UI the page loads (served only when ${SWAGGER_UI_PACKAGE} is installed)`,
          schema: { type: 'string', enum: Object.keys(SWAGGER_UI_ASSETS) },
        },
      ],
      responses: {
        200: {
          description: 'The HTML page, or the Swagger UI file `asset` names',
          content: {
            'text/html': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
          },
        },
        404: problem(`An asset that is not a file of Swagger UI, or ${SWAGGER_UI_PACKAGE} is not installed`, [
          'not_found',
        ]),
      },
    },
  },
  (ctx) => {
    const loadSwaggerUi = swaggerUiLoader();
    const name = ctx.definition.metadata.name;
    return async function docs(c) {
      const swaggerUi = await loadSwaggerUi(c.env.runtime);
      const asset = c.req.query('asset');
      if (asset !== undefined) {
        const text = swaggerUi?.get(asset as SwaggerUiAssetName);
        if (text === undefined)
          throw new ActorError('not_found', {
            detail:
              swaggerUi === undefined
                ? `${SWAGGER_UI_PACKAGE} is not installed`
                : `${asset} is not a file of Swagger UI`,
          });
        return c.body(text, 200, {
          'Content-Type': SWAGGER_UI_ASSETS[asset as SwaggerUiAssetName],
          'Cache-Control': 'public, max-age=3600',
          'X-Content-Type-Options': 'nosniff',
        });
      }
      if (swaggerUi === undefined) return c.html(DOCS_LIST_PAGE, 200, framedPageHeaders(''));
      const nonce = randomNonce();
      return c.body(await renderSwaggerUiPage({ name, nonce }), 200, htmlPageHeaders(nonce));
    };
  },
);
