import { describe, expect, it } from 'vitest';
import { loadSourceSettings } from '../../../../../shared/sources/index.js';

/** A Smaregi source's `earnAfter` (issue 53): points at the sale only, anything else refused with why. */
const config = (earnAfter: unknown) => JSON.stringify({ smaregi: { contractId: 'c1', externalKey: 'card', earnAfter } });

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

  it('refuses a return period, saying only paid is supported for till sales and why', () => {
    expect(refusal(config({ days: 14 }))).toMatch(/earnAfter.*only "paid" is supported/);
    expect(refusal(config({ days: 14 }))).toMatch(/follow its transaction's current state at once.*resolve the sale again on its day/);
  });
});
