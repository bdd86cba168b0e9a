import { escapeHtml, pageStart, type ProxyCustomerQuery } from '../customers/index.js';
import type { RedemptionRecord } from '../ledger/index.js';
import type { RedemptionSettings } from '../sources/index.js';
import { formatJst } from '../time/index.js';
import type { PendingPoints } from './pending.js';
import type { RedemptionRefusal } from './errors.js';

/**
 * The small pages the App Proxy shows in the shop, in Japanese and English: the points page (balance,
 * nearest expiries, the rules, and a form whose POST carries the request value issued for this page,
 * so a double click is one redemption), the code, and a refusal. Fragments rendered in the shop's
 * theme (`application/liquid`): every text is escaped, `{` and `}` included.
 */

export interface PointsSummary {
  balance: number;
  expiring: { expires_at: string; points: number }[];
  /** Provisional points (仮ポイント): not granted until their order ships or their day comes (pending.ts). */
  pending: PendingPoints[];
  redemption: Pick<RedemptionSettings, 'valuePerPoint' | 'currency' | 'minPoints' | 'step' | 'validSeconds'>;
}

const page = (title: string, body: string) => `${pageStart(title)}${body}</div>`;

export function pointsPage(summary: PointsSummary, query: ProxyCustomerQuery, request: string): string {
  const r = summary.redemption;
  const expiring =
    summary.expiring.length === 0
      ? '<p>期限が近いポイントはありません / No points expire soon.</p>'
      : `<ul>${summary.expiring.map((e) => `<li>${escapeHtml(String(e.points))} pt — ${escapeHtml(e.expires_at)}</li>`).join('')}</ul>`;
  const days = Math.round(r.validSeconds / 86_400);
  return page(
    'ポイント / Your points',
    `<p>保有ポイント / Balance: <strong>${escapeHtml(String(summary.balance))}</strong> pt</p>` +
      pendingLines(summary.pending) +
      `<h2>失効予定 / Expiring</h2>${expiring}` +
      `<h2>割引コードに交換 / Turn points into a discount code</h2>` +
      `<p>1 pt = ${escapeHtml(r.valuePerPoint)} ${escapeHtml(r.currency)}. ${escapeHtml(String(r.minPoints))} pt 以上、${escapeHtml(String(r.step))} pt 単位 / at least ${escapeHtml(String(r.minPoints))} points, in steps of ${escapeHtml(String(r.step))}. ` +
      `コードは1回限り、${days}日間有効 / The code works once, for ${days} days; unused, its points come back.</p>` +
      `<form method="post" action="${escapeHtml(`${query.pathPrefix}/redeem`)}">` +
      `<input type="number" name="points" min="${r.minPoints}" step="${r.step}" max="${summary.balance}" required>` +
      `<input type="hidden" name="request" value="${escapeHtml(request)}">` +
      `<button type="submit">交換する / Redeem</button></form>`,
  );
}

/** 「仮ポイント 約 50 pt（注文 #1001、発送後に確定）」: one line per provisional order. */
export function pendingLine(p: PendingPoints): string {
  const points = p.points === null ? '' : ` 約 ${p.points} pt`;
  const when = p.from === 'fulfilment' ? '発送後に確定' : `${formatJst(p.from)} に確定`;
  const english = p.from === 'fulfilment' ? 'final once shipped' : `final on ${formatJst(p.from)}`;
  return `仮ポイント${points}（注文 ${p.order}、${when}） / Provisional${points ? ` ~${p.points} pt` : ' points'}, order ${p.order}, ${english}`;
}

function pendingLines(pending: readonly PendingPoints[]): string {
  if (pending.length === 0) return '';
  return `<h2>仮ポイント / Provisional points</h2><ul>${pending.map((p) => `<li>${escapeHtml(pendingLine(p))}</li>`).join('')}</ul>`;
}

export function codePage(record: RedemptionRecord): string {
  return page(
    '割引コード / Your discount code',
    `<p><strong>${escapeHtml(record.code)}</strong></p>` +
      `<p>${escapeHtml(String(record.points))} pt → ${escapeHtml(record.value)} ${escapeHtml(record.currency)} 引き / off. ` +
      // Our record keeps ISO UTC; the shopper reads Japan time (shared/time).
      `有効期限 / Valid until ${escapeHtml(formatJst(record.expiresAt))}. チェックアウトで入力してください / Enter it at checkout.</p>`,
  );
}

export function refusalPage(refusal: RedemptionRefusal | { kind: string; message: string }, linkHref?: string): string {
  const link = linkHref
    ? `<p><a href="${escapeHtml(linkHref)}">会員連携 / Link your membership</a> (会員アプリから / start from the membership app)</p>`
    : '';
  return page('ポイントを利用できません / Not possible', `<p>${escapeHtml(refusal.message)}</p>${link}`);
}
