// The operator console: polls the JSON routes beside this page and draws them. No build step.
const api = (path) => `api/${path}`;
const POLL_MS = 2000;
const open = new Set(); // orders whose timeline is shown: `${source}\0${orderId}`
const timelines = new Map(); // the last timeline drawn per open order, shown while the next one loads

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c ?? ''));
  return node;
}

const num = (v) => el('td', { class: 'num' }, v === null || v === undefined ? '-' : String(v));
const say = (text, isError = false) => {
  const m = document.getElementById('message');
  m.textContent = text;
  m.className = isError ? 'error' : '';
};

async function getJson(path) {
  const res = await fetch(api(path), { cache: 'no-store' });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error ?? `${path} answered ${res.status}`);
  return body;
}

async function postJson(path, value) {
  const res = await fetch(api(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
  return { ok: res.ok, body: await res.json() };
}

async function drawTimeline(order, key, cell) {
  const { entries, historyNote } = await getJson(
    `timeline?source=${encodeURIComponent(order.source)}&orderId=${encodeURIComponent(order.orderId)}`,
  );
  const list = el('ol', { class: 'timeline' });
  for (const e of entries) {
    const points = e.points === undefined ? '' : ` (${e.points > 0 ? '+' : ''}${e.points})`;
    const clock = e.from === 'history' ? ' (service clock)' : '';
    list.append(el('li', {}, `${e.at}${clock}  ${e.what}${points}${e.marker ? `  marker ${e.marker}` : ''}`));
  }
  const nodes = [list, historyNote ? el('p', {}, historyNote) : ''];
  timelines.set(key, nodes);
  cell.replaceChildren(...nodes);
}

async function drawOrders() {
  const query = new URLSearchParams(new FormData(document.getElementById('filter')));
  for (const [k, v] of [...query]) if (v === '') query.delete(k);
  const { orders } = await getJson(`orders?${query}`);
  const body = document.querySelector('#orders tbody');
  const rows = [];
  for (const o of orders) {
    const key = `${o.source}\0${o.orderId}`;
    const toggle = () => {
      if (open.has(key)) open.delete(key);
      else open.add(key);
      refresh();
    };
    rows.push(
      el(
        'tr',
        { class: 'order', 'data-order': o.orderId, onclick: toggle },
        el('td', {}, o.createdAt ?? '-'),
        el('td', {}, o.source),
        el('td', {}, o.orderId),
        el('td', {}, o.customer ?? '-'),
        el('td', { class: `outcome-${o.outcome ?? o.state}` }, o.outcome ?? o.state),
        num(o.points),
        num(o.eligible === null ? null : `${o.eligible} ${o.currency ?? ''}`),
        num(o.refunded),
        num(o.debited),
      ),
    );
    for (const r of o.refunds) {
      rows.push(
        el(
          'tr',
          { class: 'refund', 'data-refund': r.refundId },
          el('td', {}, r.at ?? '-'),
          el('td', {}, '↳ refund'),
          el('td', {}, r.refundId),
          el('td', {}, ''),
          el('td', { class: `outcome-${r.outcome ?? r.state}` }, r.outcome ?? r.state),
          num(r.debited === null ? null : `-${r.debited}`),
          el('td', {}, ''),
          num(r.amount),
          num(r.shortfall ? `short ${r.shortfall}` : ''),
        ),
      );
    }
    if (open.has(key)) {
      const cell = el('td', { colspan: '9' }, ...(timelines.get(key) ?? ['loading the timeline…']));
      rows.push(el('tr', { class: 'timeline', 'data-timeline': o.orderId }, cell));
      drawTimeline(o, key, cell).catch((e) => {
        cell.textContent = e.message;
      });
    }
  }
  if (orders.length === 0) rows.push(el('tr', {}, el('td', { colspan: '9' }, 'no orders in the ledger (with this filter)')));
  body.replaceChildren(...rows);
}

async function replay(id) {
  if (!confirm(`Replay quarantined delivery ${id} through intake?`)) return;
  const { ok, body } = await postJson('replay', { id });
  say(ok ? `${id} replayed: ${body.result}` : `${id} not replayed: ${body.message ?? body.error}`, !ok);
  refresh();
}

async function drawQuarantine() {
  const { entries } = await getJson('quarantine');
  const rows = entries.map((q) =>
    el(
      'tr',
      { 'data-quarantine': q.id },
      el('td', {}, q.id),
      el('td', {}, q.source),
      el('td', {}, q.webhookId ?? '-'),
      el('td', { class: `outcome-${q.state}` }, q.replayResult ? `${q.state}: ${q.replayResult}` : q.state),
      el('td', {}, q.reason),
      el('td', {}, `${q.firstReceivedAt} / ${q.lastReceivedAt} (${q.deliveries})`),
      el(
        'td',
        {},
        q.state === 'quarantined' ? el('button', { type: 'button', class: 'replay', onclick: () => replay(q.id) }, 'Replay') : '',
      ),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '7' }, 'the quarantine is empty')));
  document.querySelector('#quarantine tbody').replaceChildren(...rows);
}

async function drawDlq() {
  const { messages } = await getJson('dlq');
  const rows = messages.map((m) =>
    el(
      'tr',
      { 'data-dlq': m.messageId },
      el('td', {}, m.messageId),
      num(m.receiveCount),
      el('td', {}, m.sentAt ?? '-'),
      el('td', {}, typeof m.event === 'string' ? m.event : `${m.event?.source ?? ''} ${m.event?.orderId ?? ''} ${m.event?.refundId ?? ''}`),
      el('td', { class: 'error' }, m.lastError ?? '-'),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '5' }, 'no dead letters')));
  document.querySelector('#dlq tbody').replaceChildren(...rows);
  document.getElementById('redrive').disabled = messages.length === 0;
}

async function drawOperations() {
  const { runs, breaker } = await getJson('operations');
  const [last] = breaker;
  document.getElementById('breaker').textContent = last
    ? `circuit breaker: ${last.state} since ${last.at} (worker ${last.worker}${last.reason ? `, ${last.reason}` : ''}); ` +
      `transitions: ${breaker.map((t) => `${t.at} ${t.state}`).join(', ')}`
    : 'circuit breaker: no transition reported (closed everywhere since the record began)';
  const rows = runs.map((r) =>
    el(
      'tr',
      { 'data-run': r.run },
      el('td', {}, r.run),
      el('td', {}, r.startedAt),
      el('td', {}, r.finishedAt),
      el('td', {}, r.ok ? 'ok' : 'failed'),
      el('td', {}, String(r.findings)),
      el('td', {}, [r.summary, ...r.details].join(' / ')),
    ),
  );
  document.querySelector('#runs tbody').replaceChildren(...rows);
}

/** "pulling: running", or paused and since when (a planned pause: npm run pause), or paused by an outage. */
function pullingText(p) {
  if (p.state === 'running') return 'pulling: running';
  if (p.state === 'unknown') return `pulling: unknown (${p.reason})`;
  if (!p.planned) return 'pulling: paused (the Open API is down; resumes when it answers)';
  return `pulling: paused since ${p.planned.since}${p.planned.until ? ` until ${p.planned.until}` : ''} (planned; npm run resume)`;
}

async function drawStatus() {
  const { label, backlog, pulling, now } = await getJson('status');
  document.getElementById('label').textContent = label;
  document.getElementById('pulling').textContent = pullingText(pulling);
  document.getElementById('backlog').textContent = `backlog: ${Object.entries(backlog)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
  document.getElementById('updated').textContent = `updated ${now}`;
}

// Redemptions beside the orders, filtered by the same customer field.
async function drawRedemptions() {
  const customer = new FormData(document.getElementById('filter')).get('customer') || '';
  const { redemptions } = await getJson(`redemptions${customer ? `?customer=${encodeURIComponent(customer)}` : ''}`);
  const rows = redemptions.map((r) =>
    el(
      'tr',
      { class: `state-${r.state}` },
      el('td', {}, r.createdAt),
      el('td', {}, r.customer),
      num(r.points),
      el('td', { class: 'num' }, `${r.value} ${r.currency}`),
      el('td', {}, r.code),
      el('td', {}, r.state),
      el('td', {}, r.order ?? '-'),
      num(r.returned),
      el('td', {}, r.why ?? '-'),
      el('td', {}, r.expiresAt),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '10' }, 'no redemptions')));
  document.querySelector('#redemptions tbody').replaceChildren(...rows);
}

// A till's plain returns naming no sale (open ones unless the box is cleared): settled with npm run returns.
async function drawReturns() {
  const open = document.getElementById('returns-open').checked;
  const { returns } = await getJson(`returns${open ? '?status=open' : ''}`);
  const rows = returns.map((r) =>
    el(
      'tr',
      { class: `state-${r.status}` },
      el('td', {}, r.at),
      el('td', {}, r.source),
      el('td', {}, r.returnId),
      el('td', {}, r.store ?? '-'),
      el('td', {}, r.terminal ?? '-'),
      el('td', {}, r.member),
      el('td', { class: 'num' }, `¥${r.amount}`),
      el('td', {}, r.lines),
      el('td', {}, r.status),
      el('td', {}, r.settled ?? '-'),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '10' }, 'no till returns')));
  document.querySelector('#returns tbody').replaceChildren(...rows);
}

// The audit's reversals of doubled history entries, filtered by the same customer field.
async function drawReversals() {
  const customer = new FormData(document.getElementById('filter')).get('customer') || '';
  const { reversals } = await getJson(`reversals${customer ? `?customer=${encodeURIComponent(customer)}` : ''}`);
  const rows = reversals.map((r) =>
    el(
      'tr',
      { class: `state-${r.state}` },
      el('td', {}, r.createdAt),
      el('td', {}, r.customer),
      el('td', {}, r.order ?? '-'),
      el('td', {}, r.entry),
      num(r.entryPoints),
      num(r.reversed),
      num(r.shortfall),
      el('td', {}, r.state),
      el('td', {}, r.why ?? '-'),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '9' }, 'no reversals')));
  document.querySelector('#reversals tbody').replaceChildren(...rows);
}

// A refresh asked for while one runs (a keystroke in the filter) runs right after it, so the
// table always ends on what the form says now, never on an earlier keystroke's answer.
let running = false;
let again = false;
async function refresh() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      await Promise.all([
        drawStatus(),
        drawOrders(),
        drawRedemptions(),
        drawReturns(),
        drawReversals(),
        drawQuarantine(),
        drawDlq(),
        drawOperations(),
      ]);
      document.body.dataset.loaded = 'true';
    } while (again);
  } catch (e) {
    say(`could not refresh: ${e.message}`, true);
  } finally {
    running = false;
  }
}

document.getElementById('redrive').addEventListener('click', async () => {
  if (!confirm('Move every dead letter back to the queue?')) return;
  const { ok, body } = await postJson('redrive', {});
  say(ok ? `moved ${body.moved} message(s) back to the queue` : `redrive failed: ${body.error}`, !ok);
  refresh();
});
document.getElementById('filter').addEventListener('input', () => refresh());
document.getElementById('returns-open').addEventListener('change', () => refresh());
refresh();
setInterval(refresh, POLL_MS);
