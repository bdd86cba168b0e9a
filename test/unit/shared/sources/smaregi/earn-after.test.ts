import { describe, expect, it } from 'vitest';
import { loadSourceSettings } from '../../../../../shared/sources/index.js';

/** A Smaregi source's `earnAfter` (issue 53): at the sale or N days after it; fulfilment refused with why. */
const config = (earnAfter: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ smaregi: { contractId: 'c1', externalKey: 'card', earnAfter, ...extra } });

function refusal(json: string): string {
  try {
    loadSourceSettings(json);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return 'accepted';
}

describe('Smaregi earnAfter in the stage', () => {
  it('accepts paid, the moment of the sale', () => {
    expect(refusal(config('paid'))).toBe('accepted');
  });

  it('refuses fulfilled, saying a till sale is handed over at once', () => {
    expect(refusal(config('fulfilled'))).toMatch(/earnAfter.*a Smaregi till sale is handed over at once, so "fulfilled" does not apply/);
  });

  it('accepts a return period of N days after the sale', () => {
    expect(refusal(config({ days: 14 }))).toBe('accepted');
  });

  it('refuses a return period of 0 days or a form it does not know, saying what it expects', () => {
    expect(refusal(config({ days: 0 }))).toMatch(/earnAfter.*expected "paid" or \{"days": N\}/);
    expect(refusal(config('shipped'))).toMatch(/earnAfter.*expected "paid" or \{"days": N\}/);
  });

  it('accepts a return period with tillPoints membership, whose credit at the day the due tick mirrors to the till', () => {
    expect(refusal(config({ days: 14 }, { tillPoints: 'membership' }))).toBe('accepted');
  });
});
