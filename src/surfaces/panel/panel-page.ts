import { html, raw } from 'hono/html';
import { basePageStyle, pageHead } from '../../core/html-page.js';
import type { PanelPageView } from './panel-definition.js';

/**
 * Browser code every panel page shares: `here`, the page's own path, and `call(path, init)`, a
 * JSON call to `here + path` (with the owner's cookie) that throws an Error naming the problem.
 * Every URL is derived from the page's own location, so the page works behind a relay under any
 * path prefix.
 * @internal
 */
export const PANEL_CALL_SCRIPT = String.raw`
  const here = location.pathname.replace(/\/+$/, '');
  async function call(path, init) {
    const response = await fetch(here + path, { credentials: 'same-origin', ...init, headers: { Accept: 'application/json', ...((init && init.headers) || {}) } });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const problems = body && Array.isArray(body.errors) ? body.errors.map((e) => (e.pointer || '/') + ' ' + e.detail).join('; ') : '';
      throw new Error(((body && (body.detail || body.title)) || 'HTTP ' + response.status) + (problems ? ' (' + problems + ')' : ''));
    }
    return body;
  }
`;

// Runs in the browser; values reach the DOM through textContent only.
const PANEL_SCRIPT = `(() => {
  const spec = JSON.parse(document.getElementById('panel-spec').textContent);
  const table = document.getElementById('data');
  const status = document.getElementById('status');
  const result = document.getElementById('result');

  function flatten(value, prefix, rows) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? prefix + '.' + key : key, rows);
    } else {
      rows.push([prefix || 'value', typeof value === 'string' ? value : JSON.stringify(value)]);
    }
    return rows;
  }

${PANEL_CALL_SCRIPT}

  async function load() {
    status.textContent = 'Loading…';
    try {
      const rows = flatten(await call('/data'), '', []);
      table.replaceChildren(...rows.map(([key, value]) => {
        const row = document.createElement('tr');
        const name = document.createElement('th');
        const cell = document.createElement('td');
        name.scope = 'row';
        name.textContent = key;
        cell.textContent = value;
        row.dataset.key = key;
        row.append(name, cell);
        return row;
      }));
      status.textContent = 'Updated ' + new Date().toLocaleTimeString();
    } catch (error) {
      status.textContent = 'Could not load the data: ' + error.message;
    }
  }

  function input(name, schema, required) {
    const label = document.createElement('label');
    label.textContent = (schema.title || name) + (required ? ' *' : '');
    let control;
    if (Array.isArray(schema.enum)) {
      control = document.createElement('select');
      for (const option of schema.enum) control.append(new Option(String(option), JSON.stringify(option)));
      control.dataset.kind = 'enum';
    } else if (schema.type === 'boolean') {
      control = document.createElement('input');
      control.type = 'checkbox';
      control.dataset.kind = 'boolean';
    } else if (schema.type === 'integer' || schema.type === 'number') {
      control = document.createElement('input');
      control.type = 'number';
      control.step = schema.type === 'integer' ? '1' : 'any';
      control.dataset.kind = 'number';
    } else if (schema.type === 'string') {
      control = document.createElement('input');
      control.type = 'text';
      control.dataset.kind = 'string';
    } else {
      control = document.createElement('textarea');
      control.placeholder = 'JSON';
      control.dataset.kind = 'json';
    }
    control.name = name;
    control.required = required && schema.type !== 'boolean';
    label.append(control);
    return label;
  }

  function payloadOf(form) {
    const payload = {};
    for (const control of form.querySelectorAll('[name]')) {
      const kind = control.dataset.kind;
      if (kind === 'boolean') payload[control.name] = control.checked;
      else if (control.value === '') continue;
      else if (kind === 'number') payload[control.name] = Number(control.value);
      else if (kind === 'enum' || kind === 'json') payload[control.name] = JSON.parse(control.value);
      else payload[control.name] = control.value;
    }
    return payload;
  }

  const forms = document.getElementById('actions');
  for (const action of spec.actions) {
    const form = document.createElement('form');
    form.dataset.action = action.name;
    const heading = document.createElement('h3');
    heading.textContent = action.title;
    form.append(heading);
    if (action.description) {
      const text = document.createElement('p');
      text.textContent = action.description;
      form.append(text);
    }
    const properties = (action.payloadSchema && action.payloadSchema.properties) || {};
    const required = new Set((action.payloadSchema && action.payloadSchema.required) || []);
    for (const [name, schema] of Object.entries(properties)) form.append(input(name, schema, required.has(name)));
    const button = document.createElement('button');
    button.type = 'submit';
    button.textContent = action.title;
    form.append(button);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      button.disabled = true;
      result.dataset.state = 'running';
      result.textContent = 'Running ' + action.title + '…';
      try {
        const body = await call('/action', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ action: action.name, payload: payloadOf(form) }) });
        result.dataset.state = 'done';
        result.textContent = JSON.stringify(body.result, null, 2);
        await load();
      } catch (error) {
        result.dataset.state = 'failed';
        result.textContent = error.message;
      } finally {
        button.disabled = false;
      }
    });
    forms.append(form);
  }
  document.getElementById('refresh').addEventListener('click', load);
  load();
})();`;

const PANEL_STYLE = `${basePageStyle('60rem')}
  #status { color: GrayText; font-size: .9rem; }
  table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
  th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid color-mix(in srgb, CanvasText 15%, transparent); }
  th { font-weight: 600; width: 40%; }
  #actions { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
  form { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: .5rem; padding: .8rem; display: grid; gap: .5rem; align-content: start; }
  form h3 { margin: 0; font-size: 1rem; }
  label { display: grid; gap: .2rem; font-size: .9rem; }
  pre { background: color-mix(in srgb, CanvasText 6%, transparent); padding: .8rem; border-radius: .5rem; overflow: auto; min-height: 2rem; }
  pre[data-state="failed"] { outline: 2px solid #c62828; }
`;

/** Serialises a value for a `<script type="application/json">` block: `<` is escaped so the block cannot be closed early. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

/**
 * The default panel page: the panel's data as a table and a form per action, built in the
 * browser from relative URLs only. Its inline script and style carry `view.nonce`.
 * @param view the panel's title, actions and the response's CSP nonce
 */
export async function renderPanelPage(view: PanelPageView): Promise<string> {
  const spec = { slug: view.slug, actions: view.actions };
  const page = await html`<!doctype html>
<html lang="en">
<head>
${pageHead(view.title, view.nonce, PANEL_STYLE)}
</head>
<body>
<header><h1>${view.title}</h1><span id="status" role="status"></span><button type="button" id="refresh">Refresh</button></header>
${view.description === undefined ? '' : html`<p>${view.description}</p>`}
<main>
<section aria-labelledby="data-heading"><h2 id="data-heading">Data</h2><table><tbody id="data"></tbody></table></section>
<section aria-labelledby="actions-heading"${view.actions.length === 0 ? raw(' hidden') : ''}><h2 id="actions-heading">Actions</h2><div id="actions"></div>
<h3>Result</h3><pre id="result" aria-live="polite"></pre></section>
</main>
<script type="application/json" id="panel-spec">${raw(jsonForScript(spec))}</script>
<script nonce="${view.nonce}">${raw(PANEL_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}
