/**
 * `GET /`: the live actor tree as one self-contained page (no build step, no CDN, no external
 * request). It reads `/actors?format=ndjson` every two seconds and draws each virtual node with its
 * own actors and its pods, coloured by status; actors in trouble (failed, restarting, crashed
 * lately, pods Failed) come first, in the "Needs attention" list and inside each node. The last
 * error shows on hover and, with the whole snapshot, on click. Data is only ever inserted as text.
 */
const STYLE = `
:root{--ok:#1f9d55;--warn:#d97706;--bad:#dc2626;--idle:#6b7280;--start:#2563eb;--bg:#f8fafc;--card:#fff}
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;background:var(--bg);color:#111827}
header{display:flex;gap:16px;align-items:center;padding:10px 16px;background:#111827;color:#fff}
header h1{font-size:16px;margin:0}header .stat{opacity:.85}#live{font-size:12px}
#filter{margin-left:auto;padding:4px 8px;border-radius:4px;border:0;min-width:220px}
main{padding:12px 16px;display:grid;gap:12px}section{background:var(--card);border-radius:8px;padding:10px 12px;box-shadow:0 1px 2px #0002}
h2{font-size:15px;margin:0 0 8px;display:flex;gap:8px;align-items:center}
.tiles{display:flex;flex-wrap:wrap;gap:6px}.tile{border-radius:6px;padding:4px 8px;color:#fff;cursor:pointer;font-size:12px;max-width:260px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.s-ok{background:var(--ok)}.s-warn{background:var(--warn)}.s-bad{background:var(--bad)}.s-idle{background:var(--idle)}.s-start{background:var(--start)}
.badge{border-radius:10px;padding:1px 8px;color:#fff;font-size:12px}.err{color:var(--bad);font-size:12px;white-space:pre-wrap}
#problems li{margin:2px 0}#detail{position:fixed;right:12px;bottom:12px;width:420px;max-height:60vh;overflow:auto;background:#111827;color:#e5e7eb;padding:10px;border-radius:8px;font:12px monospace;white-space:pre-wrap;display:none}
.more{color:var(--idle);font-size:12px}
`;

const SCRIPT = `
const SEVERITY = { bad: 0, warn: 1, start: 2, ok: 3, idle: 4 };
let latest = [], failures = 0;
function tone(a) {
  const s = a.summary || {};
  if (a.status === 'failed' || s.phase === 'Failed') return 'bad';
  if (a.status === 'restarting' || (a.restarts > 0 && a.lastError)) return 'bad';
  if (s.lastError || a.lastError) return 'warn';
  if (a.status === 'starting' || a.status === 'stopping') return 'start';
  if (a.status === 'stopped') return 'idle';
  if (a.kind === 'pod') return s.phase === 'Running' && s.ready ? 'ok' : s.phase === 'Succeeded' ? 'idle' : s.phase === 'Running' ? 'warn' : 'start';
  if (a.kind === 'virtual-node' || a.kind === 'node') return s.ready === false ? 'bad' : 'ok';
  return 'ok';
}
function errorOf(a) { return (a.lastError && a.lastError.message) || (a.summary && a.summary.lastError) || ''; }
function label(a) { const s = a.summary || {}; return a.kind === 'pod' && s.name ? s.namespace + '/' + s.name : a.name; }
function describe(a) {
  const e = errorOf(a);
  return label(a) + ' — ' + a.kind + ', ' + a.status + (a.restarts ? ', ' + a.restarts + ' restarts' : '') + (e ? '\\nlast error: ' + e : '');
}
function bySeverity(a, b) { return SEVERITY[tone(a)] - SEVERITY[tone(b)] || b.restarts - a.restarts || label(a).localeCompare(label(b)); }
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function tile(a) {
  const t = el('span', 'tile s-' + tone(a), label(a));
  t.title = describe(a); t.dataset.path = a.path; t.dataset.tone = tone(a);
  t.onclick = () => { const d = document.getElementById('detail'); d.textContent = JSON.stringify(a, null, 2); d.style.display = 'block'; };
  return t;
}
const MAX_TILES = 2000;
function render() {
  const q = document.getElementById('filter').value.trim().toLowerCase();
  const match = (a) => !q || label(a).toLowerCase().includes(q) || a.path.toLowerCase().includes(q);
  const nodes = latest.filter((a) => a.kind === 'virtual-node');
  const pods = latest.filter((a) => a.kind === 'pod');
  const problems = latest.filter((a) => SEVERITY[tone(a)] <= 1 && match(a)).sort(bySeverity);
  document.getElementById('counts').textContent = nodes.length + ' nodes · ' + pods.length + ' pods · ' + problems.length + ' need attention';
  const main = document.querySelector('main'); main.replaceChildren();
  const ps = el('section'); ps.id = 'problems'; ps.append(el('h2', '', 'Needs attention (' + problems.length + ')'));
  const list = el('ul'); for (const a of problems.slice(0, 100)) {
    const li = el('li'); li.append(tile(a)); const e = errorOf(a); if (e) li.append(el('div', 'err', e)); list.append(li);
  }
  if (problems.length === 0) ps.append(el('div', 'more', 'Nothing is failing.')); else ps.append(list);
  main.append(ps);
  for (const n of nodes) {
    const sec = el('section', 'node'); sec.dataset.node = n.summary ? n.summary.node : n.name;
    const h = el('h2'); h.append(el('span', '', (n.summary && n.summary.node) || n.name), el('span', 'badge s-' + tone(n), (n.summary && n.summary.reason) || n.status));
    sec.append(h);
    const own = latest.filter((a) => a.parent === n.path && a.kind !== 'shards');
    const sys = el('div', 'tiles system'); for (const a of own) sys.append(tile(a)); sec.append(sys);
    const mine = pods.filter((p) => p.path.startsWith(n.path + '/') && match(p)).sort(bySeverity);
    const tiles = el('div', 'tiles pods'); tiles.style.marginTop = '8px';
    for (const p of mine.slice(0, MAX_TILES)) tiles.append(tile(p));
    sec.append(tiles);
    if (mine.length > MAX_TILES) sec.append(el('div', 'more', (mine.length - MAX_TILES) + ' more pods (use the filter)'));
    main.append(sec);
  }
}
async function refresh() {
  try {
    const res = await fetch('actors?format=ndjson', { cache: 'no-store' });
    if (!res.ok) throw new Error('HTTP ' + res.status);
    const text = await res.text();
    latest = text.split('\\n').filter(Boolean).map((l) => JSON.parse(l)).filter((a) => a.path);
    failures = 0;
    document.getElementById('live').textContent = 'live · ' + new Date().toLocaleTimeString();
    render();
  } catch (e) {
    failures++;
    document.getElementById('live').textContent = 'disconnected (' + e.message + ')';
  } finally {
    setTimeout(refresh, Math.min(2000 * (1 + failures), 15000));
  }
}
document.getElementById('filter').oninput = render;
document.addEventListener('keydown', (e) => { if (e.key === 'Escape') document.getElementById('detail').style.display = 'none'; });
refresh();
`;

export function actorTreePage(title = 'Tether actor tree'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body><header><h1>${title}</h1><span class="stat" id="counts">loading…</span><span id="live">connecting…</span>
<input id="filter" placeholder="filter: namespace/pod or path" aria-label="filter"></header>
<main></main><pre id="detail" title="Esc closes"></pre>
<script>${SCRIPT}</script></body></html>
`;
}
