import { describe, expect, it } from 'vitest';
import {
  type Campaign,
  type CampaignPurchase,
  campaignBonus,
  matchingCampaigns,
  parseCampaigns,
} from '../../../../shared/campaigns/index.js';

const double: Campaign = {
  id: 'double-dec',
  title: 'ポイント2倍デー',
  from: '2026-12-01T00:00:00+09:00',
  to: '2026-12-02T00:00:00+09:00',
  multiplier: '2',
};

const purchase = (over: Partial<CampaignPurchase> = {}): CampaignPurchase => ({
  source: 'shopify',
  occurredAt: '2026-12-01T10:00:00+09:00',
  eligibleAmount: 1000,
  eligibleExact: '1000',
  ...over,
});

const ids = (cs: Campaign[]) => cs.map((c) => c.id);

describe('campaign rules: which purchases qualify', () => {
  it('a purchase made within the window qualifies, judged by when it happened', () => {
    expect(ids(matchingCampaigns([double], purchase()))).toEqual(['double-dec']);
  });

  it('a purchase made after the end does not qualify, whenever it is processed', () => {
    expect(matchingCampaigns([double], purchase({ occurredAt: '2026-12-01T15:00:00Z' }))).toEqual([]);
  });

  it('the window includes its start and excludes its end, in the rule’s offset', () => {
    expect(ids(matchingCampaigns([double], purchase({ occurredAt: '2026-11-30T15:00:00Z' })))).toEqual(['double-dec']);
    expect(matchingCampaigns([double], purchase({ occurredAt: '2026-12-02T00:00:00+09:00' }))).toEqual([]);
  });

  it('a rule limited to some sources, stores and ranks leaves the others out', () => {
    const narrow: Campaign = { ...double, sources: ['smaregi'], storeIds: ['3'], ranks: ['gold'] };
    expect(matchingCampaigns([narrow], purchase({ source: 'shopify', store: '3', rank: 'gold' }))).toEqual([]);
    expect(matchingCampaigns([narrow], purchase({ source: 'smaregi', store: '4', rank: 'gold' }))).toEqual([]);
    expect(matchingCampaigns([narrow], purchase({ source: 'smaregi', store: '3' }))).toEqual([]);
    expect(ids(matchingCampaigns([narrow], purchase({ source: 'smaregi', store: '3', rank: 'gold' })))).toEqual(['double-dec']);
  });

  it('the minimum amount is compared exactly with the eligible exact amount', () => {
    const above: Campaign = { ...double, minAmount: '3000.50' };
    expect(matchingCampaigns([above], purchase({ eligibleAmount: 3000, eligibleExact: '3000.49' }))).toEqual([]);
    expect(ids(matchingCampaigns([above], purchase({ eligibleAmount: 3000, eligibleExact: '3000.5' })))).toEqual(['double-dec']);
  });

  it('overlapping campaigns all apply', () => {
    const fixed: Campaign = { ...double, id: 'opening', multiplier: undefined, fixedPoints: 100 };
    expect(ids(matchingCampaigns([double, fixed], purchase()))).toEqual(['double-dec', 'opening']);
  });
});

describe('campaign rules: the bonus', () => {
  it('a multiplier gives base × (m − 1), floored once at the end', () => {
    expect(campaignBonus({ ...double, multiplier: '1.5' }, 333)).toBe(166);
    expect(campaignBonus({ ...double, multiplier: '1.1' }, 10)).toBe(1);
    expect(campaignBonus(double, 57)).toBe(57);
  });

  it('a fixed bonus is the same for every qualifying purchase, and nothing when the base earned nothing', () => {
    const fixed: Campaign = { ...double, multiplier: undefined, fixedPoints: 100 };
    expect(campaignBonus(fixed, 1)).toBe(100);
    expect(campaignBonus(fixed, 0)).toBe(0);
  });
});

describe('campaign rules: validation', () => {
  const problems = (rules: unknown) => {
    const parsed = parseCampaigns(rules);
    return parsed.ok ? [] : parsed.problems;
  };

  it('a rule with both a multiplier and fixed points is refused with its id and field', () => {
    expect(problems([{ ...double, fixedPoints: 10 }])).toEqual([
      "campaign 'double-dec' (campaigns[0]) multiplier: give exactly one of multiplier or fixedPoints",
    ]);
  });

  it('a window without an offset is refused', () => {
    expect(problems([{ ...double, from: '2026-12-01T00:00:00' }]).join()).toMatch(/'double-dec' \(campaigns\[0\]\) from: expected an ISO/);
  });

  it('a window ending before it starts is refused', () => {
    expect(problems([{ ...double, to: double.from }]).join()).toMatch(/'double-dec' .* to: must be after from/);
  });

  it('a multiplier of 1 or less, or given as a float, is refused', () => {
    expect(problems([{ ...double, multiplier: '1' }]).join()).toMatch(/multiplier: must be more than 1/);
    expect(problems([{ ...double, multiplier: 2 }]).join()).toMatch(/multiplier/);
  });

  it('two rules with one id are refused', () => {
    expect(problems([double, double]).join()).toMatch(/campaigns\[1\]\) id: duplicate id double-dec/);
  });

  it('overlapping rules are accepted', () => {
    expect(parseCampaigns([double, { ...double, id: 'other' }]).ok).toBe(true);
  });
});
