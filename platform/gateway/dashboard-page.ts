import { html, raw } from 'hono/html';
import { basePageStyle, pageHead } from '../../src/http/index.js';
import { GATEWAY_PATHS } from './gateway-paths.js';

// Runs in the browser. It reads /platform/actors and /platform/reconciliation with the owner's
// cookie every few seconds and draws them; every value reaches the DOM through textContent.
// An edge key is fetched only when the owner presses "Reveal" or "Copy".
const DASHBOARD_SCRIPT = String.raw`(() => {
  const paths = JSON.parse(document.getElementById('paths').textContent);
  const $ = (id) => document.getElementById(id);
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === 'data') Object.assign(node.dataset, value);
      else node[key] = value;
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  async function call(path, init) {
    const response = await fetch(path, { credentials: 'same-origin', ...init, headers: { Accept: 'application/json', ...((init && init.headers) || {}) } });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error((body && (body.detail || body.title)) || 'HTTP ' + response.status);
    return body;
  }
  const revealed = new Map();
  async function keyOf(actor) {
    if (!revealed.has(actor.ref)) revealed.set(actor.ref, (await call(actor.edge.key_path)).edge_key);
    return revealed.get(actor.ref);
  }
  function keyCell(actor) {
    if (!actor.edge.enabled) return el('span', { className: 'muted', textContent: 'no edge (external_api off)' });
    const shown = el('code', { className: 'key', textContent: revealed.get(actor.ref) || actor.edge.key_masked });
    const reveal = el('button', { type: 'button', className: 'reveal', textContent: revealed.has(actor.ref) ? 'Hide' : 'Reveal' });
    reveal.addEventListener('click', async () => {
      if (revealed.has(actor.ref)) revealed.delete(actor.ref); else await keyOf(actor).catch(showError);
      draw();
    });
    const copy = el('button', { type: 'button', className: 'copy', textContent: 'Copy' });
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(await keyOf(actor));
        copy.textContent = 'Copied';
      } catch (error) { showError(error); }
    });
    const rotate = el('button', { type: 'button', className: 'rotate', textContent: 'Rotate' });
    rotate.addEventListener('click', async () => {
      if (!confirm('Rotate the edge key of ' + actor.ref + '? The old key stops working at once.')) return;
      try {
        const body = await call(actor.edge.key_path, { method: 'POST' });
        revealed.set(actor.ref, body.edge_key);
        await refresh();
      } catch (error) { showError(error); }
    });
    return el('span', { className: 'keybox' }, shown, ' ', reveal, copy, rotate);
  }
  function replicaRow(replica) {
    const lines = el('pre', { className: 'log', textContent: replica.last_lines.slice(-5).join('\n') || '(no output yet)' });
    return el('tr', { data: { replica: String(replica.index), state: replica.state } },
      el('td', { textContent: '#' + replica.index }),
      el('td', {}, el('span', { className: 'state ' + replica.state, textContent: replica.state })),
      el('td', { textContent: replica.pid === undefined || replica.pid === null ? '–' : String(replica.pid) }),
      el('td', { textContent: String(replica.restarts) }),
      el('td', { textContent: replica.url }),
      el('td', {}, lines));
  }
  function driftList(items) {
    if (!items.length) return el('span', { className: 'ok', textContent: 'no drift' });
    return el('ul', { className: 'drift' }, ...items.map((item) => el('li', { data: { kind: item.kind }, textContent: item.kind + ': ' + item.detail })));
  }
  let actors = [];
  let report = null;
  function draw() {
    const reconciled = new Map(((report && report.actors) || []).map((row) => [row.ref, row]));
    $('actors').replaceChildren(...actors.map((actor) => {
      const row = reconciled.get(actor.ref);
      const totals = row
        ? el('p', { className: 'totals' }, 'answered ', el('strong', { className: 'answered', textContent: String(row.answered) }), ' · counted by /stats ', el('strong', { className: 'counted', textContent: row.counted === null ? '?' : String(row.counted) }), row.in_flight ? ' · ' + row.in_flight + ' under way' : '')
        : el('p', { className: 'muted', textContent: 'not reconciled yet' });
      const tenants = row && row.tenants.length
        ? el('table', { className: 'tenants' }, el('tr', {}, el('th', { textContent: 'tenant' }), el('th', { textContent: 'answered' }), el('th', { textContent: 'counted' })),
            ...row.tenants.map((tenant) => el('tr', { data: { tenant: tenant.tenant_id } }, el('td', { textContent: tenant.tenant_id }), el('td', { textContent: String(tenant.answered) }), el('td', { textContent: tenant.counted === null ? '?' : String(tenant.counted) }))))
        : null;
      return el('section', { className: 'actor', data: { ref: actor.ref } },
        el('h2', {}, actor.name + ' ', el('small', { textContent: actor.ref + ' · v' + actor.version + (actor.mesh_group ? ' · mesh ' + actor.mesh_group : '') })),
        el('p', { className: 'readiness', textContent: actor.ready + ' of ' + actor.replicas.length + ' replicas ready' }),
        el('table', { className: 'replicas' }, el('tr', {}, ...['replica', 'state', 'pid', 'restarts', 'address', 'last log lines'].map((name) => el('th', { textContent: name }))), ...actor.replicas.map(replicaRow)),
        el('dl', {},
          el('dt', { textContent: 'Edge' }), el('dd', {}, actor.edge.url ? el('code', { className: 'edge-url', textContent: actor.edge.url }) : el('span', { className: 'muted', textContent: '–' }), actor.edge.operations.length ? ' ' + actor.edge.operations.join(', ') : ''),
          el('dt', { textContent: 'Edge key' }), el('dd', {}, keyCell(actor)),
          el('dt', { textContent: 'Panels' }), el('dd', {}, ...(actor.panels.length ? actor.panels.map((panel) => el('a', { className: 'panel-link', href: panel.url, target: '_blank', rel: 'noopener', textContent: panel.title })) : [el('span', { className: 'muted', textContent: 'none' })])),
          el('dt', { textContent: 'Totals' }), el('dd', {}, totals, tenants),
          el('dt', { textContent: 'Drift' }), el('dd', {}, row ? driftList(row.drift.concat(...row.tenants.map((tenant) => tenant.drift))) : '')));
    }));
    $('updated').textContent = report && report.read_at ? 'reconciled ' + new Date(report.read_at).toLocaleTimeString() : 'not reconciled yet';
    const events = (report && report.events) || [];
    $('events').replaceChildren(...(events.length ? events.slice(-10).reverse().map((event) => el('li', { data: { kind: event.kind }, textContent: new Date(event.at).toLocaleTimeString() + ' ' + event.ref + ' ' + event.kind + ': ' + event.detail })) : [el('li', { className: 'muted', textContent: 'none since the platform started' })]));
  }
  function showError(error) {
    $('error').hidden = false;
    $('error').textContent = error.message;
  }
  async function refresh() {
    try {
      [actors, report] = await Promise.all([call(paths.actors), call(paths.reconciliation)]);
      $('error').hidden = true;
      draw();
    } catch (error) { showError(error); }
  }
  $('reconcile').addEventListener('click', async () => {
    try {
      report = await call(paths.reconciliation + '?refresh=true');
      draw();
    } catch (error) { showError(error); }
  });
  refresh();
  setInterval(refresh, 3000);
})();`;

const DASHBOARD_STYLE = `${basePageStyle('72rem')}
  h2 small { font-weight: normal; color: GrayText; font-size: .85rem; }
  .actor { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: .5rem; padding: 0 1rem 1rem; margin: 1rem 0; }
  table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .9rem; }
  th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid color-mix(in srgb, CanvasText 12%, transparent); vertical-align: top; }
  dl { display: grid; grid-template-columns: 8rem 1fr; gap: .4rem 1rem; margin: .5rem 0 0; }
  dt { font-weight: 600; }
  dd { margin: 0; }
  .state { padding: .05rem .4rem; border-radius: .3rem; font-size: .8rem; background: color-mix(in srgb, CanvasText 10%, transparent); }
  .state.ready { background: #2e7d3233; } .state.exited, .state.not_ready { background: #c6282833; } .state.starting, .state.draining { background: #f9a82533; }
  .replicas td:last-child { max-width: 36rem; }
  .log { margin: 0; max-height: 6rem; overflow: auto; font-size: .75rem; white-space: pre; }
  .muted, #updated { color: GrayText; }
  .ok { color: #2e7d32; }
  .drift li { color: #c62828; }
  .panel-link { margin-right: 1rem; }
  button { margin-left: .3rem; }
  #error { color: #c62828; }
  .tenants { width: auto; }
`;

/**
 * The owner's dashboard: one static page, no CDN, its inline script and style carrying the
 * response's CSP `nonce`. It reads the platform's JSON (paths from `GATEWAY_PATHS`) in the browser.
 * @param nonce the response's CSP nonce
 */
export async function renderDashboardPage(nonce: string): Promise<string> {
  const paths = { actors: GATEWAY_PATHS.actors, reconciliation: GATEWAY_PATHS.reconciliation };
  const page = await html`<!doctype html>
<html lang="en">
<head>
${pageHead('actorkit platform', nonce, DASHBOARD_STYLE)}
</head>
<body>
<header><h1>actorkit platform</h1><span id="updated" role="status"></span><button type="button" id="reconcile">Reconcile now</button></header>
<p id="error" role="alert" hidden></p>
<main id="actors"></main>
<section><h2>Drift events</h2><ul id="events"></ul></section>
<script type="application/json" id="paths">${raw(JSON.stringify(paths))}</script>
<script nonce="${nonce}">${raw(DASHBOARD_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}

/**
 * The page `/` answers without the owner's credentials: a form that exchanges the owner token
 * for the cookie (`POST /platform/login`).
 * @param nonce the response's CSP nonce
 * @param failed whether a token was just refused
 */
export async function renderLoginPage(nonce: string, failed: boolean): Promise<string> {
  const page = await html`<!doctype html>
<html lang="en">
<head>
${pageHead('actorkit platform · log in', nonce, `${basePageStyle('30rem')}\n  input { width: 100%; }`)}
</head>
<body>
<h1>actorkit platform</h1>
<p>Paste the owner token <code>actorkit platform</code> printed when it started (or open the link it printed).</p>
${failed ? html`<p role="alert" id="login-failed">That token is not this platform's.</p>` : ''}
<form method="post" action="${GATEWAY_PATHS.login}"><label>Owner token <input type="password" name="token" autocomplete="off" required></label> <button type="submit">Log in</button></form>
</body>
</html>
`;
  return page.toString();
}
