import { framedPageHeaders } from '../core/html-page.js';
import { defineRoute } from './actor-route.js';
import { htmlPage, json } from './openapi-parts.js';
import { openApiDocument } from './openapi-document.js';

const DOCS_PAGE = `<!doctype html>
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

/** `GET /openapi.json`: the OpenAPI 3.1 document of every mounted route, built on first use. */
export const openApiRoute = defineRoute(
  {
    method: 'get',
    path: '/openapi.json',
    security: 'open',
    contract: 'always',
    operation: { operationId: 'openApi', summary: 'This OpenAPI 3.1 document', responses: { 200: json('OpenAPI 3.1 of every mounted route') } },
  },
  (ctx, { operations }) => {
    let document: Record<string, unknown> | undefined;
    return function openApi(c) {
      document ??= openApiDocument(ctx, operations());
      return c.json(document);
    };
  },
);

/** `GET /docs`: a page that reads `/openapi.json` (no external assets). */
export const docsRoute = defineRoute(
  {
    method: 'get',
    path: '/docs',
    security: 'open',
    contract: 'always',
    operation: { operationId: 'docs', summary: 'A page that shows this document (no external assets)', responses: { 200: htmlPage('HTML page') } },
  },
  () =>
    function docs(c) {
      return c.html(DOCS_PAGE, 200, framedPageHeaders(''));
    },
);
