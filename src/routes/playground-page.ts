import { html, raw } from 'hono/html';
import type { ProblemCode } from '../core/problem-codes.js';
import { INVOKE_PATH } from '../features/invoke/invoke-route.js';
import { RUNS_PATH } from '../invoke/turn-runs.js';
import { readyRoute } from './ready.js';
import { currentSettingsRoute } from './settings.js';

/**
 * The route of the playground's "Save as eval case": served by `actorkit dev` alone (the dev
 * process owns the actor's folder and writes `evals/<name>.yaml`), never by the app, which
 * answers it 404. The page shows the button once a `GET` of it answers 200.
 */
export const PLAYGROUND_EVAL_CASES_PATH = '/playground/eval-cases';

/** The problems `actorkit dev` answers while the actor (re)starts: the banner goes once `/ready` is OK. */
const DEV_PROXY_START_CODES: readonly ProblemCode[] = ['actor_failed_to_start', 'actor_starting'];

// Runs in the browser. Every URL is derived from the page's own location (the page sits at
// `<base>/playground`), so it works behind a relay under any path prefix; every value reaches
// the DOM through textContent only. Sessions and their transcripts live in localStorage: the
// actor has no route that lists sessions.
const PLAYGROUND_SCRIPT = String.raw`(() => {
  const base = location.pathname.replace(/\/playground\/?$/, '');
  const $ = (id) => document.getElementById(id);
  const STORE = 'actorkit.playground';
  const saved = (() => { try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch { return {}; } })();
  const state = { sessions: Array.isArray(saved.sessions) ? saved.sessions : [], apiKey: saved.apiKey || '', tenant: saved.tenant || 'default', current: saved.current || null };
  const persist = () => localStorage.setItem(STORE, JSON.stringify(state));
  // An actor that needs the key is asked nothing that needs it before the key is entered: no 401s on a first visit.
  const keyMissing = () => document.body.dataset.keyRequired === 'true' && !state.apiKey;

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === 'class') node.className = value;
      else if (key === 'data') Object.assign(node.dataset, value);
      else node[key] = value;
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  const pretty = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

  function headers(extra) {
    const all = { Accept: 'application/json', 'X-Tenant-Id': state.tenant || 'default', ...(extra || {}) };
    if (state.apiKey) all['X-API-Key'] = state.apiKey;
    return all;
  }

  /** A problem+json body (or a stand-in) as {status, title, detail, code, errors}. */
  async function problemOf(response) {
    const body = await response.json().catch(() => null);
    const problem = body && typeof body === 'object' ? body : {};
    return { status: response.status, title: problem.title || 'HTTP ' + response.status, detail: problem.detail || '', code: problem.code || '', errors: Array.isArray(problem.errors) ? problem.errors : [] };
  }

  function explain(problem) {
    if (problem.status === 401) return { ...problem, title: '401 Unauthorized: ' + (state.apiKey ? 'the API key was refused' : 'this actor needs an API key') + ' (' + problem.title + ')', detail: (problem.detail ? problem.detail + '. ' : '') + 'Enter the key in the API key field.' };
    return problem;
  }

  function showBanner(problem) {
    const banner = $('banner');
    if (!problem) { banner.hidden = true; banner.replaceChildren(); return; }
    banner.hidden = false;
    banner.dataset.code = problem.code || '';
    banner.replaceChildren(el('strong', { className: 'problem-title', textContent: problem.title }), ' ', el('span', { className: 'problem-detail', textContent: problem.detail }));
  }

  // ---- sessions -------------------------------------------------------------------------
  function newSession() {
    const id = 'pg-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 8);
    const session = { id, tenant: state.tenant, title: 'New session', at: new Date().toISOString(), entries: [] };
    state.sessions.unshift(session);
    state.sessions = state.sessions.slice(0, 50);
    state.current = id;
    persist();
    drawSessions();
    drawTranscript();
  }
  const currentSession = () => state.sessions.find((session) => session.id === state.current);
  function drawSessions() {
    const picker = $('session');
    picker.replaceChildren(...state.sessions.map((session) => el('option', { value: session.id, textContent: session.title + ' · ' + session.tenant + ' · ' + session.id, selected: session.id === state.current })));
  }

  // ---- transcript -----------------------------------------------------------------------
  function drawEntry(entry) {
    const node = el('article', { class: 'msg ' + entry.role, data: { role: entry.role } });
    if (entry.role === 'error') {
      node.append(el('strong', { className: 'problem-title', textContent: entry.title }), el('p', { className: 'problem-detail', textContent: entry.detail }));
      for (const problem of entry.errors || []) node.append(el('p', { className: 'problem-field', textContent: (problem.pointer || '/') + ': ' + problem.detail }));
      return node;
    }
    for (const part of entry.parts || []) {
      if (part.kind === 'text') node.append(el('div', { className: 'text', textContent: part.text }));
      else {
        const status = part.denied ? 'denied' : part.error !== undefined ? 'error' : part.output !== undefined ? 'done' : awaitsAnswer(part) ? 'awaiting approval' : 'running';
        node.append(el('details', { className: 'tool', open: true, data: { tool: part.name, status } },
          el('summary', { textContent: 'tool ' + part.name + ' (' + status + ')' }),
          el('div', { className: 'label', textContent: 'arguments' }), el('pre', { className: 'tool-args', textContent: pretty(part.input) }),
          part.approval ? drawApproval(entry, part) : null,
          part.output !== undefined ? el('div', { className: 'label', textContent: 'output' }) : null,
          part.output !== undefined ? el('pre', { className: 'tool-output', textContent: pretty(part.output) }) : null,
          part.error !== undefined ? el('pre', { className: 'tool-error', textContent: part.error }) : null));
      }
    }
    if (entry.state) { node.dataset.runState = entry.state; node.append(el('p', { className: 'run-state', textContent: entry.state === 'cancelled' ? 'Cancelled: the run was stopped before its answer was complete.' : 'Run ' + entry.state })); }
    if (entry.meta) node.append(el('footer', { className: 'meta', textContent: entry.meta }));
    return node;
  }
  // ---- approvals ------------------------------------------------------------------------
  // A call of a tool that needs approval arrives as tool-input-available, then
  // tool-approval-request: the run waits. Each Approve or Deny is kept on the call (in
  // localStorage with the transcript); once every waiting call of the reply has its answer,
  // one invoke sends them all and the same run goes on, streamed into the same reply.
  const ended = (part) => part.output !== undefined || part.error !== undefined || part.denied === true;
  const awaitsAnswer = (part) => Boolean(part.approval) && !part.approval.decision && !ended(part);
  const waitingCalls = (reply) => (reply && reply.role === 'assistant' ? reply.parts.filter((part) => part.kind === 'tool' && part.approval && !ended(part)) : []);
  function drawApproval(reply, part) {
    const decision = part.approval.decision;
    if (decision) return el('p', { className: 'approval', data: { decision: decision.approved ? 'approved' : 'denied' }, textContent: (decision.approved ? 'Approved' : 'Denied' + (decision.reason ? ': ' + decision.reason : '')) + (ended(part) ? '' : ' (sent once every call is answered)') });
    if (ended(part)) return null;
    const reason = el('input', { className: 'deny-reason', placeholder: 'Reason (optional, told to the model)', maxLength: 2000 });
    const denyForm = el('form', { className: 'deny-form', hidden: true, onsubmit: (event) => { event.preventDefault(); decide(reply, part, false, reason.value.trim()); } },
      reason, el('button', { type: 'submit', className: 'deny-confirm', textContent: 'Deny' }),
      el('button', { type: 'button', textContent: 'Cancel', onclick: () => { denyForm.hidden = true; } }));
    return el('div', { className: 'approval', data: { approvalId: part.approval.id } },
      el('strong', { textContent: 'Needs your approval: ' + part.name }), ' ',
      el('button', { type: 'button', className: 'approve', textContent: 'Approve', onclick: () => decide(reply, part, true, '') }), ' ',
      el('button', { type: 'button', className: 'deny', textContent: 'Deny…', onclick: () => { denyForm.hidden = false; reason.focus(); } }),
      denyForm);
  }
  async function decide(reply, part, approved, reason) {
    const session = state.sessions.find((candidate) => candidate.entries.includes(reply));
    if (!session || following) return;
    part.approval.decision = reason ? { approved, reason } : { approved };
    persist();
    drawTranscript();
    const calls = waitingCalls(reply);
    if (calls.some(awaitsAnswer)) return;
    const approvals = calls.map((call) => ({ id: call.approval.id, ...call.approval.decision }));
    session.run = { id: reply.runId, after: reply.seq || 0 };
    persist();
    await streamReply(session, reply, () => fetch(base + ${JSON.stringify(INVOKE_PATH)}, {
      method: 'POST',
      headers: headers({ 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Tenant-Id': session.tenant }),
      body: JSON.stringify({ user_identifier: $('user').value || 'playground', session_id: session.id, approvals, stream: true }),
    }));
    // Refused (the problem is shown; e.g. 409 when the calls were answered elsewhere meanwhile):
    // the run says what it still waits for, or the rest of it is streamed.
    if (leaving || waitingCalls(reply).length === 0) return;
    for (const call of waitingCalls(reply)) delete call.approval.decision;
    persist();
    return restoreApprovals(session, reply);
  }
  /**
   * After a reload, asks the run (GET /agent/runs/{id}) what a reply's waiting calls became: still
   * awaiting_input, its reply.approvals are shown again; answered elsewhere (the owner's panel),
   * the rest of the run is streamed into the reply.
   */
  async function restoreApprovals(session, reply) {
    const response = await fetch(runUrl({ id: reply.runId }, ''), { headers: headers({ 'X-Tenant-Id': session.tenant }) }).catch(() => null);
    if (!response || !response.ok) { showBanner(response ? explain(await problemOf(response)) : { title: 'The run could not be read', detail: 'Its waiting calls are shown as last seen.' }); return; }
    const run = await response.json();
    if (run.state !== 'awaiting_input') {
      session.run = { id: reply.runId, after: reply.seq || 0 };
      return streamReply(session, reply, () => fetch(runUrl(session.run, '/stream?after=' + session.run.after), { headers: headers({ Accept: 'text/event-stream', 'X-Tenant-Id': session.tenant }) }));
    }
    for (const approval of (run.reply && run.reply.approvals) || []) {
      let part = reply.parts.find((candidate) => candidate.kind === 'tool' && candidate.id === approval.tool_call_id);
      if (!part) { part = { kind: 'tool', id: approval.tool_call_id, name: approval.tool, input: approval.arguments }; reply.parts.push(part); }
      if (!part.approval || part.approval.id !== approval.id) part.approval = { id: approval.id };
    }
    persist();
    drawTranscript();
  }

  function drawTranscript() {
    const session = currentSession();
    $('messages').replaceChildren(...(session ? session.entries.map(drawEntry) : []));
    $('messages').scrollTop = $('messages').scrollHeight;
  }

  // ---- chat -----------------------------------------------------------------------------
  // A run outlives its request. While one streams, its session remembers the run and the
  // number of the last part drawn (session.run, kept in localStorage with the transcript so
  // far), so a reloaded page asks for the parts after it and finishes the same reply; Stop
  // cancels the run itself, not just this page's request.
  let leaving = false;
  addEventListener('pagehide', () => { leaving = true; });
  addEventListener('pageshow', (event) => { if (event.persisted) location.reload(); });
  let following = null;
  const runUrl = (run, tail) => base + ${JSON.stringify(RUNS_PATH)} + '/' + encodeURIComponent(run.id) + tail;

  function applyChunk(reply, chunk) {
    const parts = reply.parts;
    const last = parts[parts.length - 1];
    const openText = last && last.kind === 'text' && last.open ? last : null;
    const tool = (id) => parts.find((part) => part.kind === 'tool' && part.id === id);
    const usage = reply.usage || (reply.usage = {});
    if (chunk.type === 'text-start') { if (openText) delete openText.open; parts.push({ kind: 'text', text: '', open: true }); }
    else if (chunk.type === 'text-delta') { if (openText) openText.text += chunk.delta; else parts.push({ kind: 'text', text: chunk.delta, open: true }); }
    else if (chunk.type === 'text-end') { if (openText) delete openText.open; }
    else if (chunk.type === 'tool-input-available') { if (!tool(chunk.toolCallId)) parts.push({ kind: 'tool', id: chunk.toolCallId, name: chunk.toolName, input: chunk.input }); }
    else if (chunk.type === 'tool-approval-request') { const part = tool(chunk.toolCallId); if (part) part.approval = { id: chunk.approvalId }; }
    else if (chunk.type === 'tool-output-available') { const part = tool(chunk.toolCallId); if (part) part.output = chunk.output; }
    else if (chunk.type === 'tool-output-error') { const part = tool(chunk.toolCallId); if (part) part.error = chunk.errorText; }
    else if (chunk.type === 'tool-output-denied') { const part = tool(chunk.toolCallId); if (part) part.denied = true; }
    else if (chunk.type === 'data-usage') Object.assign(usage, chunk.data);
    else if (chunk.type === 'data-session') { usage.model = chunk.data.model; $('model').textContent = 'model: ' + chunk.data.model; }
    else if (chunk.type === 'error') parts.push({ kind: 'text', text: 'Error: ' + chunk.errorText });
    else if (chunk.type === 'finish' && chunk.messageMetadata && chunk.messageMetadata.run_state) reply.state = chunk.messageMetadata.run_state;
    reply.meta = (usage.model ? 'model ' + usage.model : '') + (usage.total_tokens !== undefined ? ' · tokens in ' + usage.input_tokens + ' / out ' + usage.output_tokens + ' / total ' + usage.total_tokens : '');
  }

  /** Draws a run's stream into reply, part by part, keeping the run and its last part in session.run. */
  async function readRun(response, session, reply, update) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, cut).split('\n');
        buffer = buffer.slice(cut + 2);
        const id = lines.find((line) => line.startsWith('id:'));
        const seq = id ? Number(id.slice(3).trim()) : NaN;
        const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
        if (data === '' || data === '[DONE]') continue;
        // The answers' invoke streams the run from its first part: those drawn already are skipped.
        if (seq <= (reply.seq || 0)) continue;
        let chunk;
        try { chunk = JSON.parse(data); } catch { continue; }
        applyChunk(reply, chunk);
        const runId = (chunk.type === 'start' && chunk.messageMetadata && chunk.messageMetadata.run_id) || (chunk.type === 'data-session' && chunk.data.invocation_id);
        if (runId) reply.runId = runId;
        if (runId && !session.run) { session.run = { id: runId, after: 0 }; $('stop').disabled = false; }
        if (id) reply.seq = seq;
        if (id && session.run) session.run.after = seq;
        persist();
        update();
      }
    }
  }

  /** Streams a run into the session's last entry (reply): a new invoke, or the resume of one. */
  async function streamReply(session, reply, request) {
    let live = $('messages').children[session.entries.indexOf(reply)] || $('messages').lastElementChild;
    const update = () => { const next = drawEntry(reply); live.replaceWith(next); live = next; $('messages').scrollTop = $('messages').scrollHeight; };
    following = session;
    $('send').disabled = true;
    $('stop').hidden = false;
    $('stop').disabled = !session.run;
    $('chat-status').textContent = 'Streaming…';
    try {
      const response = await request();
      if (!response.ok) {
        const problem = explain(await problemOf(response));
        if (reply.parts.length === 0) session.entries[session.entries.length - 1] = { role: 'error', ...problem };
        else session.entries.push({ role: 'error', ...problem });
        if (problem.status === 401) showBanner(problem);
        drawTranscript();
        return;
      }
      // 204: the chat has no run in progress: it ended while the page was away, before its first part arrived.
      if (response.status === 204) { session.entries[session.entries.indexOf(reply)] = { role: 'error', title: 'No answer to resume', detail: 'The run of this message ended while the page was away; its answer is in the session history.' }; drawTranscript(); return; }
      await readRun(response, session, reply, update);
      showBanner(null);
    } catch (error) {
      if (leaving) return;
      session.entries.push({ role: 'error', title: 'The request failed', detail: String(error && error.message || error) });
      if (reply.parts.length === 0) session.entries.splice(session.entries.indexOf(reply), 1);
      drawTranscript();
    } finally {
      if (!leaving) {
        delete session.run;
        following = null;
        persist();
        $('send').disabled = false;
        $('stop').hidden = true;
        $('chat-status').textContent = '';
        refreshStats();
      }
    }
  }

  function send() {
    const box = $('message');
    const text = box.value;
    if (text.trim() === '' || following) return;
    const last = currentSession() && currentSession().entries[currentSession().entries.length - 1];
    if (waitingCalls(last).some(awaitsAnswer)) { showBanner({ title: 'Tool calls wait for your answer', detail: 'Approve or deny each one first; the run goes on, then you can send a new message.' }); return; }
    if (!currentSession() || currentSession().tenant !== state.tenant) newSession();
    const session = currentSession();
    if (session.entries.length === 0) { session.title = text.slice(0, 40); drawSessions(); }
    box.value = '';
    session.entries.push({ role: 'user', parts: [{ kind: 'text', text }] });
    const reply = { role: 'assistant', parts: [] };
    session.entries.push(reply);
    persist();
    drawTranscript();
    return streamReply(session, reply, () => fetch(base + ${JSON.stringify(INVOKE_PATH)}, {
      method: 'POST',
      headers: headers({ 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Tenant-Id': session.tenant }),
      body: JSON.stringify({ user_identifier: $('user').value || 'playground', session_id: session.id, message: text, stream: true }),
    }));
  }

  /**
   * Picks up the current session's run where the page left it (a reload mid-answer): after the
   * last part drawn; a reply left before its first part asks for the chat's run in progress.
   */
  function resumeRun() {
    const session = currentSession();
    if (following || !session || keyMissing()) return;
    const reply = session.entries[session.entries.length - 1];
    if (!reply || reply.role !== 'assistant') { if (session.run) { delete session.run; persist(); } return; }
    const run = session.run;
    if (!run && reply.runId && waitingCalls(reply).length > 0) return restoreApprovals(session, reply);
    if (!run && reply.parts.length > 0) return;
    const url = run ? runUrl(run, '/stream?after=' + run.after) : base + ${JSON.stringify(INVOKE_PATH)} + '/' + encodeURIComponent(session.id) + '/stream';
    return streamReply(session, reply, () => fetch(url, { headers: headers({ Accept: 'text/event-stream', 'X-Tenant-Id': session.tenant }) }));
  }

  /** Stop: cancels the run in progress; its stream then ends saying so. */
  async function stopRun() {
    const run = following && following.run;
    if (!run) return;
    $('stop').disabled = true;
    try {
      const response = await fetch(runUrl(run, '/cancel'), { method: 'POST', headers: headers({ 'X-Tenant-Id': following.tenant }) });
      // 409 run_finished: the answer was complete before the cancel arrived; the stream ends as usual.
      if (!response.ok && response.status !== 409) { showBanner(explain(await problemOf(response))); $('stop').disabled = false; }
    } catch (error) {
      showBanner({ title: 'The cancel failed', detail: String(error && error.message || error) });
      $('stop').disabled = false;
    }
  }

  // ---- settings -------------------------------------------------------------------------
  const fields = new Map();
  function optionsOf(schema) {
    const options = schema['x-platform-options'] || schema.enum || (schema.items && schema.items.enum) || [];
    return options.map((option) => (option !== null && typeof option === 'object' ? { value: option.value, label: option.label || String(option.value) } : { value: option, label: String(option) }));
  }
  function control(key, schema) {
    const type = schema.type;
    const widget = schema['x-platform-widget'] || (schema.enum ? 'select' : type === 'boolean' ? 'checkbox' : type === 'integer' || type === 'number' ? 'number' : type === 'array' ? 'tags' : type === 'object' ? 'json' : 'text');
    let input;
    if (widget === 'select' || widget === 'radio' || widget === 'multiselect') {
      input = el('select', { multiple: widget === 'multiselect' });
      for (const option of optionsOf(schema)) input.append(el('option', { value: JSON.stringify(option.value), textContent: option.label }));
      input.dataset.kind = widget === 'multiselect' ? 'multi' : 'json';
    } else if (widget === 'checkbox' || widget === 'switch' || type === 'boolean') {
      input = el('input', { type: 'checkbox', role: widget === 'switch' ? 'switch' : 'checkbox' });
      input.dataset.kind = 'boolean';
    } else if (widget === 'json' || widget === 'textarea') {
      input = el('textarea', { rows: 3 });
      input.dataset.kind = widget === 'json' || type !== 'string' ? 'jsontext' : 'string';
    } else if (widget === 'tags') {
      input = el('input', { type: 'text', placeholder: 'comma, separated' });
      input.dataset.kind = 'tags';
    } else if (widget === 'slider' || widget === 'number' || type === 'integer' || type === 'number') {
      input = el('input', { type: widget === 'slider' ? 'range' : 'number' });
      if (schema.minimum !== undefined) input.min = schema.minimum;
      if (schema.maximum !== undefined) input.max = schema.maximum;
      input.step = schema['x-platform-step'] || (type === 'integer' ? 1 : 'any');
      input.dataset.kind = 'number';
    } else {
      const inputType = widget === 'password' || schema.writeOnly ? 'password' : widget === 'url' || widget === 'email' ? widget : 'text';
      input = el('input', { type: inputType, placeholder: schema['x-platform-placeholder'] || '', autocomplete: 'off' });
      input.dataset.kind = 'string';
    }
    input.dataset.widget = widget;
    input.name = key;
    input.id = 'setting-' + key;
    setValue(input, schema.default);
    input.addEventListener('input', () => { input.dataset.dirty = 'true'; applyShowIf(); });
    input.addEventListener('change', () => { input.dataset.dirty = 'true'; applyShowIf(); });
    return input;
  }
  function setValue(input, value) {
    if (value === undefined || value === null) return;
    if (input.dataset.kind === 'boolean') input.checked = value === true;
    else if (input.dataset.kind === 'multi') for (const option of input.options) option.selected = Array.isArray(value) && value.map((item) => JSON.stringify(item)).includes(option.value);
    else if (input.dataset.kind === 'json') input.value = JSON.stringify(value);
    else if (input.dataset.kind === 'jsontext') input.value = JSON.stringify(value, null, 2);
    else if (input.dataset.kind === 'tags') input.value = Array.isArray(value) ? value.join(', ') : String(value);
    else if (input.type === 'password') return;
    else input.value = String(value);
  }
  function valueOf(input) {
    const kind = input.dataset.kind;
    if (kind === 'boolean') return input.checked;
    if (kind === 'multi') return [...input.selectedOptions].map((option) => JSON.parse(option.value));
    if (kind === 'json') return JSON.parse(input.value);
    if (kind === 'jsontext') return JSON.parse(input.value);
    if (kind === 'tags') return input.value.split(',').map((tag) => tag.trim()).filter(Boolean);
    if (kind === 'number') return input.value === '' ? undefined : Number(input.value);
    return input.value;
  }
  function applyShowIf() {
    for (const [key, field] of fields) {
      const rule = field.schema['x-platform-show-if'];
      if (!rule || !fields.has(rule.field)) continue;
      let other;
      try { other = valueOf(fields.get(rule.field).input); } catch { other = undefined; }
      const visible = rule.in ? rule.in.some((value) => JSON.stringify(value) === JSON.stringify(other)) : rule.equals !== undefined ? JSON.stringify(rule.equals) === JSON.stringify(other) : Boolean(other);
      field.row.hidden = !visible;
      field.row.dataset.shown = String(visible);
    }
  }
  async function loadSettings() {
    const form = $('settings-form');
    if (keyMissing()) { $('settings-status').textContent = 'Enter the API key to load the settings.'; return; }
    const response = await fetch(base + '/settings/schema', { headers: headers() });
    if (!response.ok) { const problem = explain(await problemOf(response)); $('settings-status').textContent = problem.title + ': ' + problem.detail; return; }
    const schema = await response.json();
    const current = await fetch(base + ${JSON.stringify(currentSettingsRoute.spec.path)}, { headers: headers() }).then((answer) => (answer.ok ? answer.json() : {})).catch(() => ({}));
    const values = (current && current.settings) || {};
    $('settings-status').textContent = '';
    delete $('settings-status').dataset.state;
    fields.clear();
    const sections = new Map();
    const entries = Object.entries(schema.properties || {}).sort(([, a], [, b]) => (a['x-platform-order'] ?? 1e9) - (b['x-platform-order'] ?? 1e9));
    for (const [key, property] of entries) {
      const section = property['x-platform-section'] || 'general';
      if (!sections.has(section)) sections.set(section, el('fieldset', { data: { section } }, el('legend', { textContent: section })));
      const input = control(key, property);
      if (input.type === 'password') { if (values[key]) input.placeholder = String(values[key]); }
      else setValue(input, values[key]);
      const managed = property['x-platform-managed-by'] === 'platform' ? el('small', { textContent: ' (set by the platform in production)' }) : null;
      // A slider shows its value beside it, kept up to date as it moves.
      const shown = input.type === 'range' ? el('output', { htmlFor: input.id, id: input.id + '-value', textContent: input.value }) : null;
      if (shown) input.addEventListener('input', () => { shown.textContent = input.value; });
      const row = el('div', { className: 'field', data: { key } },
        el('label', { htmlFor: input.id, textContent: property.title || key }, managed),
        input,
        shown,
        property.description ? el('small', { className: 'hint', textContent: property.description }) : null,
        el('div', { className: 'field-error', data: { for: key }, role: 'alert' }));
      fields.set(key, { input, row, schema: property });
      sections.get(section).append(row);
    }
    form.replaceChildren(...sections.values(), el('button', { type: 'submit', id: 'save-settings', textContent: 'Save settings' }));
    applyShowIf();
  }
  async function saveSettings(event) {
    event.preventDefault();
    const body = {};
    for (const [key, field] of fields) {
      field.row.querySelector('.field-error').textContent = '';
      field.input.removeAttribute('aria-invalid');
      if (field.input.dataset.dirty !== 'true') continue;
      try { body[key] = valueOf(field.input); } catch { body[key] = field.input.value; }
    }
    $('settings-status').textContent = 'Saving…';
    const response = await fetch(base + ${JSON.stringify(currentSettingsRoute.spec.path)}, { method: 'PUT', headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify(body) });
    if (!response.ok) {
      const problem = explain(await problemOf(response));
      $('settings-status').dataset.state = 'failed';
      $('settings-status').textContent = problem.title + (problem.detail ? ': ' + problem.detail : '');
      for (const issue of problem.errors) {
        const key = (issue.pointer || '').split('/')[1] || '';
        const field = fields.get(key.replaceAll('~1', '/').replaceAll('~0', '~'));
        if (field) { field.row.querySelector('.field-error').textContent = issue.detail; field.input.setAttribute('aria-invalid', 'true'); }
        else $('settings-status').textContent += ' · ' + (issue.pointer || '/') + ': ' + issue.detail;
      }
      return;
    }
    const result = await response.json();
    for (const [key, value] of Object.entries(result.settings || {})) { const field = fields.get(key); if (field) { setValue(field.input, value); field.input.dataset.dirty = 'false'; } }
    $('settings-status').dataset.state = 'saved';
    $('settings-status').textContent = 'Saved. Applied: ' + (result.applied.join(', ') || 'nothing') + (result.restart_required.length ? '. Restart required: ' + result.restart_required.join(', ') : '');
  }

  // ---- save as eval case (actorkit dev) -------------------------------------------------
  // Only actorkit dev answers GET of this path (it writes the file; the actor cannot): the
  // form is built when it does, so outside dev the page has no such button.
  const EVAL_CASES = base + ${JSON.stringify(PLAYGROUND_EVAL_CASES_PATH)};
  const caseName = (title) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'playground-case';
  function conversationCase(session) {
    const turns = session.entries.filter((entry) => entry.role === 'user').map((entry) => entry.parts.map((part) => part.text).join(''));
    const tools = session.entries.filter((entry) => entry.role === 'assistant').flatMap((entry) => entry.parts.filter((part) => part.kind === 'tool').map((part) => ({ name: part.name, args: part.input })));
    return { turns, tools, ...(session.tenant && session.tenant !== 'default' ? { tenant: session.tenant } : {}) };
  }
  async function saveEvalCase(event) {
    event.preventDefault();
    const session = currentSession();
    const status = $('eval-case-status');
    const body = { name: $('eval-case-name').value.trim(), overwrite: $('eval-case-overwrite').checked, ...conversationCase(session || { entries: [], tenant: state.tenant }) };
    status.textContent = 'Saving…';
    const response = await fetch(EVAL_CASES, { method: 'POST', headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify(body) }).catch(() => null);
    if (!response) { status.dataset.state = 'failed'; status.textContent = 'actorkit dev could not be reached'; return; }
    if (!response.ok) {
      const problem = explain(await problemOf(response));
      status.dataset.state = problem.code === 'eval_case_exists' ? 'exists' : 'failed';
      status.textContent = problem.title + (problem.detail ? ': ' + problem.detail : '') + problem.errors.map((issue) => ' · ' + (issue.pointer || '/') + ': ' + issue.detail).join('');
      return;
    }
    const saved = await response.json();
    status.dataset.state = 'saved';
    status.textContent = 'Saved ' + saved.file + ': run actorkit eval, and edit its expectations to what must hold.';
  }
  let evalCaseAsked = false;
  async function offerEvalCase() {
    // Asked once, after the key is in when the actor needs one: the page asks nothing that needs
    // the key before it is entered (outside actorkit dev the app answers this path, 401 or 404).
    if (keyMissing() || evalCaseAsked) return;
    evalCaseAsked = true;
    const answer = await fetch(EVAL_CASES, { headers: headers({ Accept: 'application/json' }) }).catch(() => null);
    if (!answer || !answer.ok) return;
    const session = currentSession();
    const form = el('form', { id: 'eval-case-form', className: 'eval-case', onsubmit: saveEvalCase },
      el('label', { htmlFor: 'eval-case-name', textContent: 'Case name' }),
      el('input', { id: 'eval-case-name', required: true, maxLength: 80, value: caseName(session ? session.title : '') }),
      el('label', { className: 'check' }, el('input', { id: 'eval-case-overwrite', type: 'checkbox' }), ' overwrite'),
      el('button', { type: 'submit', id: 'save-eval-case', textContent: 'Save as eval case' }));
    document.querySelector('aside').prepend(el('section', { ariaLabel: 'Eval case' },
      el('h2', { textContent: 'Eval case' }),
      el('small', { className: 'hint', textContent: 'Writes this conversation and the tools it called to evals/<name>.yaml (actorkit dev).' }),
      form, el('p', { id: 'eval-case-status', role: 'status' })));
  }

  // ---- live state -----------------------------------------------------------------------
  async function refreshStats() {
    try {
      const ready = await fetch(base + ${JSON.stringify(readyRoute.spec.path)}, { headers: headers() });
      const body = await ready.json().catch(() => ({}));
      $('ready').dataset.state = ready.ok ? 'ready' : 'not-ready';
      if (ready.ok) { $('ready').textContent = 'ready'; if (${JSON.stringify(DEV_PROXY_START_CODES)}.includes($('banner').dataset.code)) showBanner(null); }
      else if (body && body.code) { $('ready').textContent = body.title || 'not ready'; showBanner({ code: body.code, title: body.title, detail: body.detail || '' }); }
      else $('ready').textContent = 'not ready: ' + (body.reason || ready.status);
    } catch { $('ready').dataset.state = 'unreachable'; $('ready').textContent = 'unreachable'; }
    if (keyMissing()) { $('stats').replaceChildren(el('p', { textContent: 'Enter the API key to see the stats.' })); return; }
    try {
      const response = await fetch(base + '/stats/' + encodeURIComponent(state.tenant || 'default'), { headers: headers() });
      if (!response.ok) { const problem = explain(await problemOf(response)); $('stats').replaceChildren(el('p', { className: 'problem', textContent: problem.title })); return; }
      const stats = await response.json();
      const keys = ['invocations', 'errors', 'sessions', 'users', 'input_tokens', 'output_tokens', 'tool_calls', 'last_invoked_at'];
      $('stats').replaceChildren(...keys.flatMap((key) => [el('dt', { textContent: key }), el('dd', { data: { stat: key }, textContent: stats[key] === null || stats[key] === undefined ? '—' : String(stats[key]) })]));
    } catch { /* the ready badge says it */ }
  }

  // ---- wiring ---------------------------------------------------------------------------
  $('api-key').value = state.apiKey;
  $('tenant').value = state.tenant;
  $('api-key').addEventListener('change', () => { state.apiKey = $('api-key').value.trim(); persist(); showBanner(null); refreshStats(); loadSettings(); resumeRun(); offerEvalCase(); });
  $('tenant').addEventListener('change', () => { state.tenant = $('tenant').value.trim() || 'default'; persist(); refreshStats(); });
  $('session').addEventListener('change', () => { state.current = $('session').value; const session = currentSession(); if (session) { state.tenant = session.tenant; $('tenant').value = session.tenant; } persist(); drawTranscript(); refreshStats(); resumeRun(); });
  $('new-session').addEventListener('click', newSession);
  $('message').addEventListener('keydown', (event) => { if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); } });
  $('composer').addEventListener('submit', (event) => { event.preventDefault(); send(); });
  $('stop').addEventListener('click', stopRun);
  $('settings-form').addEventListener('submit', saveSettings);
  if (!currentSession()) newSession(); else { drawSessions(); drawTranscript(); resumeRun(); }
  loadSettings();
  refreshStats();
  setInterval(refreshStats, 3000);
  offerEvalCase().finally(() => { document.body.dataset.loaded = 'true'; });
})();`;

const PLAYGROUND_STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --line: color-mix(in srgb, CanvasText 18%, transparent); }
  * { box-sizing: border-box; }
  [hidden] { display: none !important; }
  body { margin: 0; display: grid; grid-template-rows: auto auto 1fr; height: 100vh; }
  header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
  header h1 { margin: 0; font-size: 1.1rem; }
  header label { font-size: .85rem; display: flex; gap: .3rem; align-items: center; }
  #ready { font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; border: 1px solid var(--line); }
  #ready[data-state="ready"] { background: #2e7d3233; }
  #ready[data-state="not-ready"], #ready[data-state="unreachable"] { background: #c6282833; }
  #banner { margin: 0; padding: .6rem 1rem; background: #c6282826; border-bottom: 2px solid #c62828; white-space: pre-wrap; }
  main { display: grid; grid-template-columns: minmax(0, 1fr) 22rem; min-height: 0; }
  #chat { display: grid; grid-template-rows: 1fr auto; min-height: 0; border-right: 1px solid var(--line); }
  #messages { overflow: auto; padding: 1rem; display: flex; flex-direction: column; gap: .6rem; }
  .msg { padding: .5rem .8rem; border-radius: .6rem; max-width: 90%; white-space: pre-wrap; }
  .msg.user { align-self: flex-end; background: color-mix(in srgb, #1565c0 18%, Canvas); }
  .msg.assistant { align-self: flex-start; background: color-mix(in srgb, CanvasText 6%, Canvas); }
  .msg.error { align-self: stretch; background: #c628281f; outline: 1px solid #c62828; }
  .msg .meta { font-size: .75rem; color: GrayText; margin-top: .3rem; }
  .msg .run-state { font-size: .8rem; margin: .3rem 0 0; color: #c62828; }
  .tool { margin: .3rem 0; border: 1px dashed var(--line); border-radius: .4rem; padding: .3rem .5rem; }
  .tool pre { margin: .2rem 0; font-size: .8rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
  .approval { margin: .3rem 0; padding: .4rem .5rem; border-radius: .4rem; background: #f9a8252e; }
  .approval[data-decision="approved"] { background: #2e7d3226; }
  .approval[data-decision="denied"] { background: #c628281f; }
  .deny-form { display: flex; gap: .3rem; margin-top: .3rem; }
  .deny-form input { flex: 1; }
  .label { font-size: .7rem; text-transform: uppercase; color: GrayText; }
  #composer { display: grid; grid-template-columns: 1fr auto; gap: .5rem; padding: .6rem; border-top: 1px solid var(--line); }
  #composer textarea { resize: vertical; min-height: 2.6rem; font: inherit; }
  aside { overflow: auto; padding: .6rem 1rem; display: grid; gap: 1rem; align-content: start; }
  aside h2 { font-size: 1rem; margin: 0; }
  fieldset { border: 1px solid var(--line); border-radius: .4rem; display: grid; gap: .5rem; }
  .field { display: grid; gap: .15rem; font-size: .85rem; }
  .field-error { color: #c62828; font-size: .8rem; }
  .hint { color: GrayText; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .8rem; font-size: .85rem; margin: 0; }
  dd { margin: 0; font-variant-numeric: tabular-nums; }
  #settings-status[data-state="failed"], #eval-case-status[data-state="failed"], #eval-case-status[data-state="exists"] { color: #c62828; }
  .eval-case, #eval-case-status { display: grid; gap: .3rem; font-size: .85rem; }
  .eval-case .check { display: flex; gap: .3rem; align-items: center; }
`;

/**
 * The chat playground: one self-contained page (inline script and style carrying `nonce`, no
 * external resource) that talks to the actor through relative URLs: `POST /agent/invoke` as a
 * UI message stream (and the answers to the tool calls waiting for approval, with Approve and
 * Deny on each), `GET /agent/runs/{id}` to show waiting calls again after a reload,
 * `GET /agent/runs/{id}/stream` to resume a run after a reload and
 * `POST /agent/runs/{id}/cancel` for Stop, `GET /settings/schema`, `GET /settings` and `PUT /settings`, `GET /ready`, `GET /stats/{tenant}`; under `actorkit dev`, `GET` and `POST`
 * {@link PLAYGROUND_EVAL_CASES_PATH} for "Save as eval case".
 * @param view the actor's name and the response's CSP nonce
 */
export async function renderPlaygroundPage(view: {
  readonly name: string;
  readonly nonce: string;
  /** Whether the actor's routes need `X-API-Key` (`API_KEY_ENABLED`): the page then asks nothing of them before the key is entered. */
  readonly keyRequired: boolean;
}): Promise<string> {
  const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.name} · playground</title>
<link rel="icon" href="data:,">
<style nonce="${view.nonce}">${raw(PLAYGROUND_STYLE)}</style>
</head>
<body data-key-required="${String(view.keyRequired)}">
<header>
<h1>${view.name} · playground</h1>
<span id="ready" role="status">…</span>
<span id="model"></span>
<label>API key <input id="api-key" type="password" autocomplete="off" placeholder="X-API-Key"></label>
<label>Tenant <input id="tenant" size="12" placeholder="default"></label>
<label>User <input id="user" size="10" value="playground"></label>
<label>Session <select id="session"></select></label>
<button type="button" id="new-session">New session</button>
</header>
<p id="banner" role="alert" hidden></p>
<main>
<section id="chat" aria-label="Chat">
<div id="messages" aria-live="polite"></div>
<form id="composer"><textarea id="message" rows="2" placeholder="Message (Enter sends, Shift+Enter for a new line)"></textarea><div><button type="submit" id="send">Send</button><button type="button" id="stop" hidden>Stop</button><div id="chat-status" role="status"></div></div></form>
</section>
<aside>
<section aria-labelledby="stats-heading"><h2 id="stats-heading">Tenant stats</h2><dl id="stats"></dl></section>
<section aria-labelledby="settings-heading"><h2 id="settings-heading">Settings</h2><form id="settings-form" novalidate></form><p id="settings-status" role="status"></p></section>
</aside>
</main>
<script nonce="${view.nonce}">${raw(PLAYGROUND_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}
