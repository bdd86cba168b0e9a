import type { Ledger } from '../shared/ledger/index.js';
import { SUPERSEDED_SHARE, shareOrderId } from '../shared/points/index.js';
import type { Mismatch } from './compare.js';
import type { UnfinishedEvent } from './report.js';
import type { Scenario } from './scenario.js';

/**
 * The ledger's side of partial fulfilments (issue 53, provisional.ts): every shipped share an order noted ends
 * done, and a share credited is taken back (its `superseded` refund done) once its order earned or ended.
 * The histories' side (one credit, one take-back, net 0) is compare.ts's; a share's message left in the
 * dead-letter list is in the run's unfinished events (runner.ts) like any other.
 */
export async function checkShares(scenario: Scenario, ledger: Ledger): Promise<{ unfinished: UnfinishedEvent[]; mismatches: Mismatch[] }> {
  const unfinished: UnfinishedEvent[] = [];
  const mismatches: Mismatch[] = [];
  const shipped = new Set(scenario.deliveries.flatMap((d) => (d.partial === undefined ? [] : [d.event])));
  for (const index of shipped) {
    const event = scenario.events[index];
    if (event?.kind !== 'purchase') continue;
    const order = await ledger.getOrder({ source: event.source, orderId: event.orderId });
    if (!order) continue;
    const earning = order.state !== 'done' || order.outcome === 'pending_earn';
    for (const amount of order.shippedShares) {
      const ref = { source: event.source, orderId: shareOrderId(event.orderId, Number(amount)) };
      const share = await ledger.getOrder(ref);
      const key = `${event.key}/ship-${amount}`;
      // Noted but never claimed (a larger share was live by then, or the order earned first): nothing credited.
      if (!share) continue;
      if (share.state !== 'done') {
        unfinished.push({ key: event.key, why: `${key}: share state ${share.state}, ${share.lastError ?? 'no error'}` });
        continue;
      }
      if (share.outcome !== 'credited' || earning) continue;
      const back = await ledger.getRefund({ ...ref, refundId: SUPERSEDED_SHARE });
      if (back?.state !== 'done' || !share.refunds[SUPERSEDED_SHARE]) {
        mismatches.push({
          customer: event.customer,
          orderId: event.orderId,
          what: `share ${amount} credited, order ${order.outcome}, not taken back (${back ? `take-back ${back.state} ${back.outcome ?? ''}` : 'no take-back'})`,
        });
      }
    }
  }
  return { unfinished, mismatches };
}
