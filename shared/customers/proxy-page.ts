import type { LinkRefusal } from './errors.js';
import type { LinkResult } from './link.js';
import type { ProxyLinkQuery } from './proxy-query.js';

/**
 * The small pages the App Proxy shows in the shop, answered as `application/liquid`: Shopify renders
 * them inside the shop's theme (its layout gives the document, so a page is a fragment), and runs any
 * Liquid in them, so every text we did not write is escaped, `{` and `}` too (escapeHtml):
 * the confirmation step (which membership, masked, and a button that POSTs the value back through the
 * same App Proxy URL) and the result.
 */

/** `8f6d…0003`: enough for the member to recognise their membership, not enough to name it to others. */
export function maskMember(memberId: string): string {
  return memberId.length <= 8 ? `${memberId.slice(0, 2)}…` : `${memberId.slice(0, 4)}…${memberId.slice(-4)}`;
}

export function confirmPage(link: ProxyLinkQuery, confirm: string): string {
  const title = '会員連携の確認 / Confirm the link';
  // The storefront URL the customer came by (`/apps/points/link?token=&member=`): Shopify signs the POST afresh.
  const action = `${link.pathPrefix}/link?${new URLSearchParams({ token: link.token, member: link.memberId }).toString()}`;
  const text = `Link this shop account to membership ${maskMember(link.memberId)}? Purchases will earn its points.`;
  return (
    `${pageStart(title)}` +
    `<p>${escapeHtml(text)}</p><form method="post" action="${escapeHtml(action)}">` +
    `<input type="hidden" name="confirm" value="${escapeHtml(confirm)}"><button type="submit">連携する / Link</button></form>` +
    `<p>If you did not start this from your membership app, close this page: nothing is linked.</p></div>`
  );
}

export function resultPage(result: LinkResult): string {
  const [title, text] = result.ok
    ? ['会員連携が完了しました / Linked', 'Your shop account is now linked to your membership: purchases earn points.']
    : ['会員連携できませんでした / Not linked', describe(result.refusal)];
  return `${pageStart(title)}<p>${escapeHtml(text)}</p></div>`;
}

const describe = (r: LinkRefusal) => r.message;

/** The opening of a page fragment (closed by `</div>`): its own heading, in Japanese first. */
export const pageStart = (title: string): string => `<div class="loyalty-points" lang="ja"><h1>${escapeHtml(title)}</h1>`;

/** HTML-escaped, and Liquid-inert: `{` and `}` too, so no `{{ … }}` or `{% … %}` from a sender ever runs in the theme. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'{}]/g, (c) => `&#${c.charCodeAt(0)};`);
}
