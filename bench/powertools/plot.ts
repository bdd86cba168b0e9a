import type { ComparisonFigures } from './compare.js';

/** The run's cumulative doubled and lost credits and debits for both sides as a small self-contained SVG (no network). */

const W = 640;
const H = 320;
const M = { left: 48, right: 16, top: 36, bottom: 40 };

const SERIES = [
  { side: 'powertools', key: 'doubled', label: 'Powertools: doubled', color: '#c0392b', dash: '' },
  { side: 'powertools', key: 'lost', label: 'Powertools: lost', color: '#e67e22', dash: '6 4' },
  { side: 'powertoolsHistory', key: 'doubled', label: '+ history check: doubled', color: '#8e44ad', dash: '' },
  { side: 'powertoolsHistory', key: 'lost', label: '+ history check: lost', color: '#7f8c8d', dash: '6 4' },
  { side: 'bridge', key: 'doubled', label: 'bridge: doubled', color: '#1f4e9c', dash: '' },
  { side: 'bridge', key: 'lost', label: 'bridge: lost', color: '#16a085', dash: '2 3' },
] as const;

export function comparisonSvg(figures: ComparisonFigures): string {
  const n = figures.plan.length;
  const all = [...figures.bridge.cumulative, ...figures.powertools.cumulative, ...figures.powertoolsHistory.cumulative];
  const top = Math.max(1, ...all.map((c) => Math.max(c.doubled, c.lost)));
  const x = (i: number) => M.left + ((W - M.left - M.right) * (i + 1)) / Math.max(1, n);
  const y = (v: number) => H - M.bottom - ((H - M.top - M.bottom) * v) / top;
  const f = (v: number) => v.toFixed(1);
  const lines = SERIES.map((s) => {
    const points = figures[s.side].cumulative.map((c, i) => `${f(x(i))},${f(y(c[s.key]))}`);
    const start = `${f(M.left)},${f(y(0))}`;
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
    return `<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${[start, ...points].join(' ')}"/>`;
  });
  const ticks = [0, Math.round(top / 2), top].map(
    (v) =>
      `<text x="${M.left - 6}" y="${f(y(v) + 4)}" text-anchor="end">${v}</text><line x1="${M.left}" x2="${W - M.right}" y1="${f(y(v))}" y2="${f(y(v))}" stroke="#ddd"/>`,
  );
  const legend = SERIES.map(
    (s, i) =>
      `<line x1="${M.left + 10 + i * 145}" x2="${M.left + 34 + i * 145}" y1="22" y2="22" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/><text x="${M.left + 38 + i * 145}" y="26">${s.label}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<title>Cumulative credits and debits doubled and lost over the run: bridge ${figures.bridge.doubled} / ${figures.bridge.lost}, Powertools idempotency ${figures.powertools.doubled} / ${figures.powertools.lost}</title>`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="12" font-weight="bold">Cumulative credits + debits doubled / lost, same ${n} events and faults (seed ${figures.seed})</text>`,
    ...ticks,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`,
    `<text x="${(W + M.left) / 2}" y="${H - 10}" text-anchor="middle">events delivered (each purchase, then its refund; run order)</text>`,
    `<text x="${M.left}" y="${H - M.bottom + 14}" text-anchor="middle">0</text>`,
    `<text x="${W - M.right}" y="${H - M.bottom + 14}" text-anchor="middle">${n}</text>`,
    ...lines,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
