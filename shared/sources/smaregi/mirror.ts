import type { CustomerRef } from '../../events/index.js';
import { findMember, type MemberMemo } from '../../points/index.js';
import type { ResolveDeps } from '../resolution.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';

/**
 * Under `tillPoints: membership` the till lets a member spend only what Smaregi's customer record holds,
 * so after the sale's points moved the member's balance is written to it: exactly the membership
 * service's figure, read after the change, set as an absolute value (会員ポイント更新), which is safe to
 * repeat. A failure changes nothing already done: it is logged (`smaregi point mirror failed`, with the
 * error kind, no personal data) and counted as a failed Smaregi call; the member's next sale writes it again.
 */
export async function mirrorBalance(
  deps: Pick<ResolveDeps, 'openapi' | 'logger'>,
  client: Partial<Pick<SmaregiClient, 'setCustomerPoint'>>,
  smaregiCustomerId: string,
  member: CustomerRef,
  members?: MemberMemo,
): Promise<void> {
  if (!client.setCustomerPoint) return;
  let point: number;
  try {
    // The balance the sale's (or its spend's) last answer gave, when this message had one: no lookup.
    point = Math.max(0, members?.balance(member) ?? (await findMember(deps.openapi, member)).point);
  } catch {
    // Not a member (or the service is failing): nothing to mirror now; the points calls recorded why.
    return;
  }
  try {
    await client.setCustomerPoint(smaregiCustomerId, point);
  } catch (e) {
    const kind = e instanceof SmaregiError ? e.kind : 'unavailable';
    deps.logger?.warn('smaregi point mirror failed', { smaregiCustomerId, errorKind: kind });
  }
}
