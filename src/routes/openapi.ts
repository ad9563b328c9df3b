import { Hono } from 'hono';
import type { ActorContext, ActorEnv } from '../context/actor-context.js';
import type { DocumentedOperation } from '../context/documented-operation.js';
import { framedPageHeaders } from '../core/html-page.js';
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

/** `GET /openapi.json` (OpenAPI 3.1 of every mounted route) and `GET /docs` (a page that reads it, no external assets). */
export function openApiRoutes(ctx: ActorContext, operations: () => readonly DocumentedOperation[]): Hono<ActorEnv> {
  let document: Record<string, unknown> | undefined;
  return new Hono<ActorEnv>()
    .get('/openapi.json', function openApi(c) {
      document ??= openApiDocument(ctx, operations());
      return c.json(document);
    })
    .get('/docs', function docs(c) {
      return c.html(DOCS_PAGE, 200, framedPageHeaders(''));
    });
}
