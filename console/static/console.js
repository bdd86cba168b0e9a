// The operator console: polls the JSON routes beside this page and draws them. No build step (jst.js is
// shared/time, built by the server).
import { formatJst } from './jst.js';

const api = (path) => `api/${path}`;
const POLL_MS = 2000;
const open = new Set(); // orders whose timeline is shown: `${source}\0${orderId}`
const timelines = new Map(); // the last timeline answer per open order, drawn while the next one loads

// Words: one table per language (messages.ja.json, messages.en.json), Japanese unless the reader chose
// English; the choice is kept in the URL (?lang=en) and in localStorage, so a reload or a link keeps it.
const LANGS = ['ja', 'en'];
const LANG_KEY = 'console.lang';
const tables = {};
let lang = 'ja';

function chosenLang() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (LANGS.includes(asked)) return asked;
  const kept = localStorage.getItem(LANG_KEY);
  return LANGS.includes(kept) ? kept : 'ja';
}

/** A message in the reader's language: a key and its values, a value itself a message (`{key, params}`) or data. */
function t(key, params = {}) {
  const text = tables[lang]?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const v = params[name];
    if (v === null || v === undefined) return '';
    return typeof v === 'object' ? t(v.key, v.params) : String(v);
  });
}
const tm = (m) => (m ? t(m.key, m.params) : '');

// Every time shown in Japan time with its offset, whatever the machine's zone: shared/time's own formatJst
// (`2026-12-01 09:30:00 JST (+09:00)`), built for the page by the server (console/time-module.ts).
function jst(iso) {
  if (iso === null || iso === undefined || iso === '') return '-';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : formatJst(date);
}

async function loadTables() {
  await Promise.all(
    LANGS.map(async (l) => {
      const res = await fetch(`messages.${l}.json`, { cache: 'no-store' });
      tables[l] = await res.json();
    }),
  );
}

/** The page's fixed words (data-i18n, data-i18n-placeholder) in the chosen language. */
function applyLang() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-placeholder]')) node.placeholder = t(node.dataset.i18nPlaceholder);
  document.title = t('page.title');
}

function switchLang() {
  lang = lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem(LANG_KEY, lang);
  const url = new URL(location.href);
  url.searchParams.set('lang', lang);
  history.replaceState(null, '', url);
  applyLang();
  if (lastSaid) say(lastSaid.key, lastSaid.params, lastSaid.isError);
  refresh();
}

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
let lastSaid = null; // worded again when the language changes
const say = (key, params, isError = false) => {
  lastSaid = { key, params, isError };
  const m = document.getElementById('message');
  m.textContent = t(key, params);
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

/**
 * One timeline entry: ours (the ledger's, the activity's) are ISO UTC, shown in Japan time; the
 * membership service writes `Y-m-d H:i:s` in a zone its spec does not name, shown as it is, marked so.
 */
function timelineLine(e) {
  const points = e.points === undefined ? '' : ` (${e.points > 0 ? '+' : ''}${e.points})`;
  const at = e.from === 'history' ? `${e.at}${t('timeline.serviceClock')}` : jst(e.at);
  return `${at}  ${tm(e.what)}${points}${e.marker ? `  ${t('timeline.marker', { marker: e.marker })}` : ''}`;
}

function timelineNodes({ entries, historyNote }) {
  const list = el('ol', { class: 'timeline' });
  for (const e of entries) list.append(el('li', {}, timelineLine(e)));
  return [list, historyNote ? el('p', {}, tm(historyNote)) : ''];
}

async function drawTimeline(order, key, cell) {
  const answer = await getJson(`timeline?source=${encodeURIComponent(order.source)}&orderId=${encodeURIComponent(order.orderId)}`);
  timelines.set(key, answer);
  cell.replaceChildren(...timelineNodes(answer));
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
        el('td', {}, jst(o.createdAt)),
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
          el('td', {}, jst(r.at)),
          el('td', {}, t('orders.refundRow')),
          el('td', {}, r.refundId),
          el('td', {}, ''),
          el('td', { class: `outcome-${r.outcome ?? r.state}` }, r.outcome ?? r.state),
          num(r.debited === null ? null : `-${r.debited}`),
          el('td', {}, ''),
          num(r.amount),
          num(r.shortfall ? t('orders.shortfall', { points: r.shortfall }) : ''),
        ),
      );
    }
    if (open.has(key)) {
      const kept = timelines.get(key);
      const cell = el('td', { colspan: '9' }, ...(kept ? timelineNodes(kept) : [t('orders.loadingTimeline')]));
      rows.push(el('tr', { class: 'timeline', 'data-timeline': o.orderId }, cell));
      drawTimeline(o, key, cell).catch((e) => {
        cell.textContent = e.message;
      });
    }
  }
  if (orders.length === 0) rows.push(el('tr', {}, el('td', { colspan: '9' }, t('orders.none'))));
  body.replaceChildren(...rows);
}

async function replay(id) {
  if (!confirm(t('quarantine.confirmReplay', { id }))) return;
  const { ok, body } = await postJson('replay', { id });
  if (ok) say('quarantine.replayed', { id, result: body.result });
  else say('quarantine.notReplayed', { id, error: body.message ?? body.error }, true);
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
      el('td', {}, t('quarantine.seenTimes', { first: jst(q.firstReceivedAt), last: jst(q.lastReceivedAt), deliveries: q.deliveries })),
      el(
        'td',
        {},
        q.state === 'quarantined'
          ? el('button', { type: 'button', class: 'replay', onclick: () => replay(q.id) }, t('quarantine.replay'))
          : '',
      ),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '7' }, t('quarantine.none'))));
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
      el('td', {}, jst(m.sentAt)),
      el('td', {}, typeof m.event === 'string' ? m.event : `${m.event?.source ?? ''} ${m.event?.orderId ?? ''} ${m.event?.refundId ?? ''}`),
      el('td', { class: 'error' }, m.lastError ?? '-'),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '5' }, t('dlq.none'))));
  document.querySelector('#dlq tbody').replaceChildren(...rows);
  document.getElementById('redrive').disabled = messages.length === 0;
}

async function drawOperations() {
  const { runs, breaker } = await getJson('operations');
  const [last] = breaker;
  document.getElementById('breaker').textContent = last
    ? t('breaker.last', {
        state: last.state,
        at: jst(last.at),
        worker: last.worker,
        reason: last.reason ? `, ${last.reason}` : '',
        transitions: breaker.map((b) => `${jst(b.at)} ${b.state}`).join(', '),
      })
    : t('breaker.none');
  const rows = runs.map((r) =>
    el(
      'tr',
      { 'data-run': r.run },
      el('td', {}, r.run),
      el('td', {}, jst(r.startedAt)),
      el('td', {}, jst(r.finishedAt)),
      el('td', {}, t(r.ok ? 'runs.ok' : 'runs.failed')),
      el('td', {}, String(r.findings)),
      el('td', {}, [r.summary, ...r.details].join(' / ')),
    ),
  );
  document.querySelector('#runs tbody').replaceChildren(...rows);
}

/** "pulling: running", or paused and since when (a planned pause: npm run pause), or paused by an outage. */
function pullingText(p) {
  if (p.state === 'running') return t('pulling.running');
  if (p.state === 'unknown') return t('pulling.unknown', { reason: p.reason });
  if (!p.planned) return t('pulling.outage');
  const until = p.planned.until ? t('pulling.until', { until: jst(p.planned.until) }) : '';
  return t('pulling.planned', { since: jst(p.planned.since), until });
}

// The queue counts by the names the local queue and SQS give them (console/source.ts: Backlog).
const BACKLOG_WORDS = {
  ready: 'backlog.ready',
  processing: 'backlog.processing',
  'waiting retry': 'backlog.waitingRetry',
  'dead-lettered': 'backlog.deadLettered',
  'in flight or deferred': 'backlog.inFlight',
  delayed: 'backlog.delayed',
};

async function drawStatus() {
  const { label, backlog, pulling, now } = await getJson('status');
  document.getElementById('label').textContent = tm(label);
  document.getElementById('pulling').textContent = pullingText(pulling);
  const counts = Object.entries(backlog).map(([k, v]) => `${BACKLOG_WORDS[k] ? t(BACKLOG_WORDS[k]) : k} ${v}`);
  document.getElementById('backlog').textContent = t('backlog', { counts: counts.join(', ') });
  document.getElementById('updated').textContent = t('updated', { now: jst(now) });
}

// Redemptions beside the orders, filtered by the same customer field.
async function drawRedemptions() {
  const customer = new FormData(document.getElementById('filter')).get('customer') || '';
  const { redemptions } = await getJson(`redemptions${customer ? `?customer=${encodeURIComponent(customer)}` : ''}`);
  const rows = redemptions.map((r) =>
    el(
      'tr',
      { class: `state-${r.state}` },
      el('td', {}, jst(r.createdAt)),
      el('td', {}, r.customer),
      num(r.points),
      el('td', { class: 'num' }, `${r.value} ${r.currency}`),
      el('td', {}, r.code),
      el('td', {}, r.state),
      el('td', {}, r.order ?? '-'),
      num(r.returned),
      el('td', {}, r.why ?? '-'),
      el('td', {}, jst(r.expiresAt)),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '10' }, t('redemptions.none'))));
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
      el('td', {}, jst(r.at)),
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
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '10' }, t('returns.none'))));
  document.querySelector('#returns tbody').replaceChildren(...rows);
}

// Till spends the membership balance cut short (tillPoints membership): the shop settles each with its member.
async function drawShortfalls() {
  const { shortfalls } = await getJson('shortfalls');
  const rows = shortfalls.map((s) =>
    el(
      'tr',
      {},
      el('td', {}, s.at ? jst(s.at) : '-'),
      el('td', {}, s.source),
      el('td', {}, s.spend),
      el('td', {}, s.member),
      el('td', { class: 'num' }, String(s.spent)),
      el('td', { class: 'num' }, String(s.taken)),
      el('td', { class: 'num' }, String(s.short)),
      el('td', {}, s.policy),
    ),
  );
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '8' }, t('shortfalls.none'))));
  document.querySelector('#shortfalls tbody').replaceChildren(...rows);
}

// The audit's reversals of doubled history entries, filtered by the same customer field.
async function drawReversals() {
  const customer = new FormData(document.getElementById('filter')).get('customer') || '';
  const { reversals } = await getJson(`reversals${customer ? `?customer=${encodeURIComponent(customer)}` : ''}`);
  const rows = reversals.map((r) =>
    el(
      'tr',
      { class: `state-${r.state}` },
      el('td', {}, jst(r.createdAt)),
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
  if (rows.length === 0) rows.push(el('tr', {}, el('td', { colspan: '9' }, t('reversals.none'))));
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
        drawShortfalls(),
        drawReversals(),
        drawQuarantine(),
        drawDlq(),
        drawOperations(),
      ]);
      document.body.dataset.loaded = 'true';
    } while (again);
  } catch (e) {
    say('refresh.failed', { error: e.message }, true);
  } finally {
    running = false;
  }
}

document.getElementById('redrive').addEventListener('click', async () => {
  if (!confirm(t('dlq.confirmRedrive'))) return;
  const { ok, body } = await postJson('redrive', {});
  if (ok) say('dlq.moved', { count: body.moved });
  else say('dlq.redriveFailed', { error: body.error }, true);
  refresh();
});
document.getElementById('filter').addEventListener('input', () => refresh());
document.getElementById('returns-open').addEventListener('change', () => refresh());
document.getElementById('lang').addEventListener('click', switchLang);
lang = chosenLang();
loadTables().then(
  () => {
    applyLang();
    refresh();
    setInterval(refresh, POLL_MS);
  },
  (e) => {
    // No table to word it with: both languages.
    document.getElementById('message').textContent = `メッセージを読み込めません / could not load the messages: ${e.message}`;
  },
);
