/**
 * `GET /`: the live actor tree as one self-contained page (no build step, no CDN, no external
 * request), usable at 10,000 pods per node because it never downloads the whole tree:
 * - the groups (node → role → state, with counts and restarts) come from `/actors/summary`, under
 *   the filters in the header (text, state, restarted, error);
 * - the selected group's actors are a virtualized list: only the rows in view are in the DOM, and
 *   pages of `/actors` (cursor) are fetched as the list scrolls to them;
 * - one actor in depth (stage, retries, timeline, last messages, kubectl) from `/actors/<path>`;
 * - live changes from `/actors/events` (Server-Sent Events): rows in view are updated in place,
 *   the counts and the open detail re-read at most once a second; a `resync` re-reads all.
 * Data is only ever inserted as text.
 */
const STYLE = `
:root{--ok:#1f9d55;--warn:#d97706;--bad:#dc2626;--idle:#6b7280;--start:#2563eb;--bg:#f8fafc;--card:#fff}
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;background:var(--bg);color:#111827;height:100vh;display:flex;flex-direction:column}
header{display:flex;gap:12px;align-items:center;padding:8px 14px;background:#111827;color:#fff;flex-wrap:wrap}
header h1{font-size:16px;margin:0}#live{font-size:12px;opacity:.8}header input,header select{padding:3px 6px;border-radius:4px;border:0}
header label{font-size:12px}#q{min-width:200px}
main{flex:1;display:grid;grid-template-columns:300px 1fr 440px;gap:10px;padding:10px;min-height:0}
section{background:var(--card);border-radius:8px;padding:8px 10px;box-shadow:0 1px 2px #0002;overflow:auto;min-height:0}
h2{font-size:14px;margin:0 0 6px}.g{cursor:pointer;padding:2px 4px;border-radius:4px;display:flex;gap:6px}.g:hover{background:#eef2ff}.g.sel{background:#dbeafe}
.g .n{margin-left:auto;font-variant-numeric:tabular-nums}.g .r{color:var(--bad);font-size:12px}.g.node{font-weight:600;margin-top:6px}.g.role{padding-left:14px}.g.state{padding-left:28px}
.dot{width:10px;height:10px;border-radius:5px;display:inline-block;margin-top:5px}
.t-ok{background:var(--ok)}.t-warn{background:var(--warn)}.t-bad{background:var(--bad)}.t-idle{background:var(--idle)}.t-start{background:var(--start)}
#viewport{position:relative;height:calc(100% - 28px);overflow:auto}#spacer{position:relative}
.row{position:absolute;left:0;right:0;height:26px;display:flex;gap:8px;align-items:center;padding:0 6px;cursor:pointer;white-space:nowrap;overflow:hidden;border-bottom:1px solid #f1f5f9}
.row:hover{background:#f1f5f9}.row.sel{background:#dbeafe}.row .name{flex:1;overflow:hidden;text-overflow:ellipsis}.row .meta{color:var(--idle);font-size:12px}.row .err{color:var(--bad);font-size:12px;max-width:40%;overflow:hidden;text-overflow:ellipsis}
#detail h3{font-size:13px;margin:10px 0 4px}#detail dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0;font-size:13px}#detail dt{color:var(--idle)}
#detail ol{margin:0;padding-left:18px;font-size:12px}#detail li.bad{color:var(--bad)}#detail pre{background:#111827;color:#e5e7eb;padding:6px;border-radius:6px;font-size:12px;white-space:pre-wrap;margin:0}
.muted{color:var(--idle);font-size:12px}
`;

const SCRIPT = `
const ROW = 26, PAGE = 100;
const TONE = { failed: 'bad', restarting: 'bad', erroring: 'warn', starting: 'start', pending: 'start', running: 'ok', succeeded: 'idle', stopping: 'idle', stopped: 'idle' };
const $ = (id) => document.getElementById(id);
const state = { group: null, items: [], index: new Map(), cursor: undefined, done: false, loading: false, total: 0, gen: 0, selected: null, summary: null };
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = String(text); return e; }
function filters() {
  const p = new URLSearchParams();
  const q = $('q').value.trim(); if (q) p.set('q', q);
  const s = $('state').value; if (s) p.set('state', s);
  if ($('restarted').checked) p.set('restarted', 'true');
  const e = $('error').value.trim(); if (e) p.set('error', e);
  return p;
}
function stateOf(a) {
  if (a.status !== 'running') return a.status;
  const s = a.summary || {};
  if (a.kind === 'pod') { if (s.phase === 'Failed') return 'failed'; if (s.lastError) return 'erroring'; if (s.phase === 'Running') return 'running'; if (s.phase === 'Succeeded') return 'succeeded'; return 'pending'; }
  return s.lastError ? 'erroring' : 'running';
}
function label(a) { const s = a.summary || {}; return a.kind === 'pod' && s.name ? s.namespace + '/' + s.name : a.name; }
function errorOf(a) { return (a.lastError && a.lastError.message) || (a.summary && a.summary.lastError) || ''; }
async function getJson(url) { const r = await fetch(url, { cache: 'no-store' }); if (!r.ok) throw new Error('HTTP ' + r.status + ' ' + url); return r.json(); }

async function loadSummary() {
  const t0 = performance.now();
  const summary = await getJson('actors/summary?' + filters());
  state.summary = summary;
  renderGroups();
  $('counts').textContent = summary.count + ' actors · ' + summary.restarts + ' restarts';
  if (!state.group) {
    const node = summary.nodes.find((n) => n.node !== '') || summary.nodes[0];
    if (node) selectGroup({ node: node.node, role: node.roles.some((r) => r.role === 'pod') ? 'pod' : null, state: null });
  } else {
    state.total = groupCount(state.group); sizeList();
  }
  document.body.dataset.summaryMs = String(Math.round(performance.now() - t0));
}
function groupCount(g) {
  const n = state.summary && state.summary.nodes.find((x) => x.node === g.node); if (!n) return 0;
  if (!g.role) return n.count;
  const r = n.roles.find((x) => x.role === g.role); if (!r) return 0;
  if (!g.state) return r.count;
  const s = r.states.find((x) => x.state === g.state); return s ? s.count : 0;
}
function sameGroup(a, b) { return a && b && a.node === b.node && a.role === b.role && a.state === b.state; }
function groupRow(cls, g, text, count, restarts, tone) {
  const d = el('div', 'g ' + cls); d.dataset.node = g.node; if (g.role) d.dataset.role = g.role; if (g.state) d.dataset.state = g.state;
  if (tone) d.append(el('span', 'dot t-' + tone));
  d.append(el('span', '', text));
  if (restarts) d.append(el('span', 'r', '↻' + restarts));
  d.append(el('span', 'n', count));
  if (sameGroup(g, state.group)) d.classList.add('sel');
  d.onclick = () => selectGroup(g);
  return d;
}
function renderGroups() {
  const box = $('groups'); const out = [el('h2', '', 'Groups')];
  for (const n of state.summary.nodes) {
    out.push(groupRow('node', { node: n.node, role: null, state: null }, n.node || '(agent)', n.count, n.restarts));
    for (const r of n.roles) {
      out.push(groupRow('role', { node: n.node, role: r.role, state: null }, r.role, r.count, r.restarts));
      if (r.states.length > 1 || r.role === 'pod') for (const s of r.states) out.push(groupRow('state', { node: n.node, role: r.role, state: s.state }, s.state, s.count, s.restarts, TONE[s.state]));
    }
  }
  if (state.summary.omittedNodes) out.push(el('div', 'muted', state.summary.omittedNodes + ' more nodes: search by node name'));
  box.replaceChildren(...out);
}

function selectGroup(g) {
  state.group = g; state.items = []; state.index = new Map(); state.cursor = undefined; state.done = false; state.gen++;
  state.total = groupCount(g);
  $('listTitle').textContent = (g.node || '(agent)') + (g.role ? ' › ' + g.role : '') + (g.state ? ' › ' + g.state : '') + ' (' + state.total + ')';
  $('viewport').scrollTop = 0;
  if (state.summary) renderGroups();
  sizeList(); subscribe(); loadMore();
}
function listQuery() {
  const p = filters(); const g = state.group;
  if (g.node) p.set('node', g.node); if (g.role) p.set('role', g.role);
  if (g.state) p.set('state', g.state);
  if (!g.node) p.set('depth', '1');
  return p;
}
async function loadMore() {
  if (state.loading === state.gen || state.done || !state.group) return;
  const gen = state.gen; state.loading = gen;
  try {
    const p = listQuery(); p.set('limit', String(PAGE)); if (state.cursor) p.set('cursor', state.cursor);
    const page = await getJson('actors?' + p);
    if (gen !== state.gen) return;
    for (const a of page.items) { state.index.set(a.path, state.items.length); state.items.push(a); }
    state.cursor = page.cursor; state.done = !page.cursor;
    if (state.done) state.total = state.items.length;
    sizeList(); renderRows();
    document.body.dataset.listed = String(state.items.length);
  } finally { if (state.loading === gen) state.loading = false; }
  if (gen === state.gen) maybeLoad();
}
function sizeList() { $('spacer').style.height = Math.max(state.total, state.items.length) * ROW + 'px'; }
function maybeLoad() {
  const v = $('viewport'); const last = Math.ceil((v.scrollTop + v.clientHeight) / ROW) + 20;
  if (last > state.items.length) loadMore();
}
function renderRows() {
  const v = $('viewport'); const first = Math.max(0, Math.floor(v.scrollTop / ROW) - 5);
  const last = Math.min(state.items.length, Math.ceil((v.scrollTop + v.clientHeight) / ROW) + 5);
  const rows = [];
  for (let i = first; i < last; i++) {
    const a = state.items[i]; const st = stateOf(a);
    const r = el('div', 'row'); r.style.top = i * ROW + 'px'; r.dataset.path = a.path; r.dataset.state = st;
    if (a.path === state.selected) r.classList.add('sel');
    r.append(el('span', 'dot t-' + (TONE[st] || 'idle')), el('span', 'name', label(a)), el('span', 'meta', st + (a.restarts ? ' · ↻' + a.restarts : '')));
    const e = errorOf(a); if (e) r.append(el('span', 'err', e));
    r.onclick = () => openDetail(a.path);
    rows.push(r);
  }
  $('spacer').replaceChildren(...rows);
}

async function openDetail(path) {
  state.selected = path; renderRows();
  const d = await getJson('actors/' + path.split('/').map(encodeURIComponent).join('/'));
  if (state.selected !== path) return;
  const a = d.actor, s = a.summary || {}, box = $('detail');
  const out = [el('h2', '', label(a))];
  const dl = el('dl'); const add = (k, v) => { if (v === undefined || v === null || v === '') return; dl.append(el('dt', '', k), el('dd', '', v)); };
  add('path', a.path); add('kind', a.kind); add('state', d.state); add('status', a.status); add('stage', s.stage); add('phase', s.phase);
  add('ready', s.ready === undefined ? undefined : String(s.ready)); add('node ready', s.nodeReady === undefined ? undefined : String(s.nodeReady));
  add('restarts', a.restarts); add('create attempts', s.createAttempts || undefined); add('next attempt', s.nextAttemptAt);
  add('mailbox', a.mailboxDepth); add('messages handled', a.processed); add('last error', errorOf(a));
  const det = d.detail || {};
  if (det.giveUp && det.giveUp.crashesLeft !== null) add('crashes before given up', det.giveUp.crashesLeft + ' within ' + det.giveUp.withinMs / 1000 + ' s');
  if (det.escalation && det.escalation.crashesLeft !== null) add('crashes before it escalates', det.escalation.crashesLeft + ' within ' + det.escalation.withinMs / 1000 + ' s');
  out.push(dl);
  out.push(el('h3', '', 'Supervision timeline (' + (det.historyTotal || 0) + ')'));
  const tl = el('ol'); tl.id = 'timeline';
  for (const e of det.history || []) {
    const li = el('li', e.type === 'crashed' || e.type === 'given-up' || e.type === 'escalated' ? 'bad' : '',
      new Date(e.at).toLocaleTimeString() + ' ' + e.type + (e.error ? ': [' + e.error.kind + '] ' + e.error.message : '') + (e.delayMs !== undefined ? ' in ' + e.delayMs + ' ms' : '') + (e.reason ? ': ' + e.reason : '') + (e.child ? ' ' + e.child + ' → ' + e.decision : ''));
    li.dataset.type = e.type; tl.append(li);
  }
  if (!(det.history || []).length) out.push(el('div', 'muted', 'no crash, restart or give-up recorded'));
  out.push(tl);
  out.push(el('h3', '', 'Last messages and effects'));
  const tr = el('ol'); for (const e of d.trace) tr.append(el('li', '', new Date(e.at).toLocaleTimeString() + ' ' + e.what + ' ' + e.type)); out.push(tr);
  if (d.kubectl.length) { out.push(el('h3', '', 'kubectl')); out.push(el('pre', '', d.kubectl.join('\\n'))); }
  box.replaceChildren(...out);
}

let source, summaryDue = false, detailDue = false, detailBusy = false;
// The open actor is re-read as soon as it changes (one read in flight at a time), so its crash shows at once.
function refreshDetail() {
  if (detailBusy || !state.selected) return;
  detailDue = false; detailBusy = true;
  openDetail(state.selected).catch(() => undefined).finally(() => { detailBusy = false; if (detailDue) refreshDetail(); });
}
function subscribe() {
  if (source) source.close();
  const p = new URLSearchParams(); if (state.group && state.group.node) p.set('node', state.group.node);
  source = new EventSource('actors/events?' + p);
  source.addEventListener('hello', () => { $('live').textContent = 'live'; });
  source.addEventListener('changes', (ev) => {
    const data = JSON.parse(ev.data);
    for (const a of data.changed) {
      const i = state.index.get(a.path); if (i !== undefined) state.items[i] = a;
      if (a.path === state.selected) detailDue = true;
    }
    summaryDue = true; renderRows();
    if (detailDue) refreshDetail();
  });
  source.addEventListener('resync', () => { summaryDue = true; detailDue = true; });
  source.onerror = () => { $('live').textContent = 'reconnecting…'; };
}
setInterval(() => {
  if (summaryDue) { summaryDue = false; loadSummary().catch((e) => { $('live').textContent = e.message; }); }
  if (detailDue) refreshDetail();
}, 1000);
let timer;
function refilter() { clearTimeout(timer); timer = setTimeout(() => { const g = state.group; loadSummary().then(() => { if (g) selectGroup(g); }); }, 150); }
for (const id of ['q', 'error']) $(id).oninput = refilter;
for (const id of ['state', 'restarted']) $(id).onchange = refilter;
$('viewport').onscroll = () => { renderRows(); maybeLoad(); };
window.onresize = renderRows;
loadSummary().catch((e) => { $('live').textContent = e.message; });
`;

const STATES = ['failed', 'restarting', 'erroring', 'starting', 'pending', 'running', 'succeeded', 'stopping', 'stopped'];

export function actorTreePage(title = 'Tether actor tree'): string {
  const options = STATES.map((s) => `<option value="${s}">${s}</option>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body><header><h1>${title}</h1><span id="counts">loading…</span><span id="live">connecting…</span>
<input id="q" placeholder="search: name, namespace/pod, path" aria-label="search">
<select id="state" aria-label="state"><option value="">any state</option>${options}</select>
<label><input type="checkbox" id="restarted"> restarted</label>
<input id="error" placeholder="last error contains (* any)" aria-label="error"></header>
<main><section id="groups"></section>
<section id="list"><h2 id="listTitle"></h2><div id="viewport"><div id="spacer"></div></div></section>
<section id="detail"><div class="muted">Select an actor.</div></section></main>
<script>${SCRIPT}</script></body></html>
`;
}
