import { describe, expect, it } from 'vitest';
import { doublingMismatches } from '../../chaos/final-audit.js';

/** What the run makes of doubled entries after its final audit: only late commits beyond the horizon may double. */
describe('doubled entries after the final audit', () => {
  it('accepts entries doubled by late commits drawn beyond the horizon, each reversed by the audit', () => {
    expect(doublingMismatches({ doubled: 2, reversed: 2 }, { reversed: 2 }, 3)).toEqual([]);
  });

  it('fails a run with more entries doubled than late commits drawn beyond the horizon', () => {
    expect(doublingMismatches({ doubled: 1, reversed: 1 }, { reversed: 1 }, 0).map((m) => m.what)).toEqual([
      '1 history entries doubled, more than the 0 late commits drawn beyond the in-doubt horizon: an operation was sent again while an earlier send could still land',
    ]);
  });

  it('fails a run whose audit reversed other than the reversals the histories show', () => {
    expect(doublingMismatches({ doubled: 1, reversed: 0 }, { reversed: 1 }, 1).map((m) => m.what)).toEqual([
      'the final audit reversed 1 entries, the histories show 0 reversals that cancel a doubled entry',
    ]);
  });
});
