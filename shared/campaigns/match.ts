import { compareDecimals, type Decimal, parseDecimal } from '../money/index.js';
import type { Campaign } from './schema.js';

/** What the rules look at in a purchase: where and when it happened, who made it, for how much. */
export interface CampaignPurchase {
  source: string;
  /** When it happened (not when it was processed): a backlog after the sale still earns, a late webhook does not. */
  occurredAt: string;
  store?: string | undefined;
  rank?: string | undefined;
  /** The eligible amount exactly (the basis of its points), or the integer one when the event has no exact one. */
  eligibleExact?: string | undefined;
  eligibleAmount: number;
}

/** The rules a purchase qualifies for (all of them: overlapping campaigns add up). */
export function matchingCampaigns(campaigns: readonly Campaign[], p: CampaignPurchase): Campaign[] {
  return campaigns.filter((c) => matches(c, p));
}

function matches(c: Campaign, p: CampaignPurchase): boolean {
  const at = Date.parse(p.occurredAt);
  // The window includes its start and excludes its end: back-to-back campaigns never both apply.
  if (Number.isNaN(at) || at < Date.parse(c.from) || at >= Date.parse(c.to)) return false;
  if (c.sources && !c.sources.includes(p.source)) return false;
  if (c.storeIds && (p.store === undefined || !c.storeIds.includes(p.store))) return false;
  if (c.ranks && (p.rank === undefined || !c.ranks.includes(p.rank))) return false;
  if (c.minAmount !== undefined && compareDecimals(amountOf(p), parseDecimal(c.minAmount) as Decimal) < 0) return false;
  return true;
}

function amountOf(p: CampaignPurchase): Decimal {
  return (p.eligibleExact !== undefined ? parseDecimal(p.eligibleExact) : undefined) ?? { units: BigInt(p.eligibleAmount), scale: 0 };
}

/**
 * The bonus of a rule for a base credit: `fixedPoints`, or base × (multiplier − 1) exactly, floored once
 * (1.5 × 333 points: 166, not 167). Nothing when the base earned nothing.
 */
export function campaignBonus(c: Campaign, base: number): number {
  if (base <= 0) return 0;
  if (c.fixedPoints !== undefined) return c.fixedPoints;
  const m = parseDecimal(c.multiplier as string) as Decimal;
  const one = 10n ** BigInt(m.scale);
  return Number((BigInt(base) * (m.units - one)) / one);
}
