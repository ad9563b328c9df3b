import { html, raw } from 'hono/html';
import { basePageStyle, pageHead } from '../../core/html-page.js';
import type { PanelPageView } from './panel-definition.js';
import { PANEL_CALL_SCRIPT } from './panel-page.js';

// Runs in the browser: lists the waiting calls of `<page>/data`, one card each, and sends the
// owner's Approve or Deny to `<page>/action` (`decide`); values reach the DOM through textContent only.
const APPROVALS_SCRIPT = `(() => {
${PANEL_CALL_SCRIPT}
  const list = document.getElementById('approvals');
  const status = document.getElementById('status');
  const result = document.getElementById('result');
  function el(tag, props, ...children) {
    const node = Object.assign(document.createElement(tag), props || {});
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  async function decide(card, payload) {
    for (const button of card.querySelectorAll('button')) button.disabled = true;
    result.dataset.state = 'running';
    result.textContent = (payload.approved ? 'Approving ' : 'Denying ') + payload.approval_id + '…';
    try {
      const body = await call('/action', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ action: 'decide', payload }) });
      result.dataset.state = 'done';
      result.textContent = (body.result.decision === 'approved' ? 'Approved ' : 'Denied ') + body.result.approval_id + '; the run is ' + body.result.state + '.';
      await load();
    } catch (error) {
      result.dataset.state = 'failed';
      result.textContent = error.message;
      for (const button of card.querySelectorAll('button')) button.disabled = false;
    }
  }
  function card(id, call) {
    const ids = { run_id: call.run_id, approval_id: id };
    const reason = el('input', { className: 'deny-reason', placeholder: 'Reason (optional, told to the model)', maxLength: 2000 });
    const node = el('article', { className: 'approval' },
      el('h2', { textContent: call.tool }),
      el('pre', { className: 'arguments', textContent: JSON.stringify(call.arguments, null, 2) }),
      el('p', { className: 'meta', textContent: 'run ' + call.run_id + ' · session ' + call.session_id + ' · asked ' + new Date(call.asked_at).toLocaleString() }),
      el('div', { className: 'answer' },
        el('button', { type: 'button', className: 'approve', textContent: 'Approve', onclick: () => decide(node, { ...ids, approved: true }) }),
        reason,
        el('button', { type: 'button', className: 'deny', textContent: 'Deny', onclick: () => decide(node, reason.value.trim() ? { ...ids, approved: false, reason: reason.value.trim() } : { ...ids, approved: false }) })));
    node.dataset.approvalId = id;
    return node;
  }
  async function load() {
    status.textContent = 'Loading…';
    try {
      const data = await call('/data');
      const calls = Object.entries(data.approvals || {});
      list.replaceChildren(...(calls.length === 0 ? [el('p', { className: 'empty', textContent: 'No tool call waits for an answer (tenant ' + data.tenant_id + ').' })] : calls.map(([id, call]) => card(id, call))));
      status.textContent = calls.length + ' waiting · tenant ' + data.tenant_id + ' · updated ' + new Date().toLocaleTimeString();
    } catch (error) {
      status.textContent = 'Could not load the approvals: ' + error.message;
    }
  }
  document.getElementById('refresh').addEventListener('click', load);
  load();
})();`;

const APPROVALS_STYLE = `${basePageStyle('60rem')}
  #status { color: GrayText; font-size: .9rem; }
  #approvals { display: grid; gap: .8rem; margin: 1rem 0; }
  .approval { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: .5rem; padding: .8rem; }
  .approval h2 { margin: 0; font-size: 1.1rem; }
  .meta { color: GrayText; font-size: .85rem; margin: .3rem 0; }
  .answer { display: flex; gap: .5rem; }
  .answer input { flex: 1; }
  pre { background: color-mix(in srgb, CanvasText 6%, transparent); padding: .6rem; border-radius: .4rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
  #result:empty { display: none; }
  #result[data-state="failed"] { outline: 2px solid #c62828; }
`;

/**
 * The approvals panel's page: each waiting tool call as a card (tool, arguments, run, session,
 * when asked) with Approve, and Deny with an optional reason; built in the browser from
 * relative URLs only. Its inline script and style carry `view.nonce`.
 * @param view the panel's title and the response's CSP nonce
 */
export async function renderApprovalsPanelPage(view: PanelPageView): Promise<string> {
  const page = await html`<!doctype html>
<html lang="en">
<head>
${pageHead(view.title, view.nonce, APPROVALS_STYLE)}
</head>
<body>
<header><h1>${view.title}</h1><span id="status" role="status"></span><button type="button" id="refresh">Refresh</button></header>
${view.description === undefined ? '' : html`<p>${view.description}</p>`}
<main>
<section id="approvals" aria-label="Waiting tool calls"></section>
<pre id="result" aria-live="polite"></pre>
</main>
<script nonce="${view.nonce}">${raw(APPROVALS_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}
