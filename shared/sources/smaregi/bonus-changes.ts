import type { BonusRecord, BonusRef } from '../../ledger/index.js';
import { bonusMarker, bonusReturnMarker } from '../../points/index.js';
import type { PointChange } from './till-mirror.js';

/** The ledger reads a bonus mirror needs: the order's campaigns (its snapshot) and each campaign's bonus record. */
export interface BonusReader {
  getOrder(ref: { source: string; orderId: string }): Promise<{ campaigns?: readonly { id: string }[] | undefined } | undefined>;
  getBonus?(ref: BonusRef): Promise<BonusRecord | undefined>;
}

/**
 * The campaign bonuses of an order that ran (issue 53), as points changes to mirror to the member's till
 * record: each bonus granted and each refund's share taken back, keyed by the marker of its own points
 * call, so the mirror step (till-mirror.ts) keeps each exactly once whoever finds it first: the delivery
 * that granted it, a redelivery after a crash between the bonus and its mirror, or the due tick. Read from
 * the bonus records, which are written only once their call ran; one not finished yet is the next
 * delivery's (it finishes the bonus first). An order without campaigns reads nothing more.
 */
export async function bonusChanges(
  ledger: BonusReader,
  source: string,
  orderId: string,
  known?: { campaigns?: readonly { id: string }[] | undefined },
): Promise<PointChange[]> {
  if (!ledger.getBonus) return [];
  const order = known ?? (await ledger.getOrder({ source, orderId }));
  const changes: PointChange[] = [];
  for (const campaign of order?.campaigns ?? []) {
    const bonus = await ledger.getBonus({ source, orderId, campaignId: campaign.id });
    if (bonus?.state !== 'done' || !bonus.memberId || !bonus.points) continue;
    changes.push({ marker: bonusMarker(source, orderId, campaign.id), memberId: bonus.memberId, points: bonus.points });
    for (const [refundId, back] of Object.entries(bonus.clawbacks)) {
      if (back.taken > 0)
        changes.push({ marker: bonusReturnMarker(source, orderId, campaign.id, refundId), memberId: bonus.memberId, points: -back.taken });
    }
  }
  return changes;
}
