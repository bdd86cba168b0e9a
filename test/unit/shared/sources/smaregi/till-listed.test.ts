import { describe, expect, it } from 'vitest';
import type { TillMirrorRecord } from '../../../../../shared/ledger/index.js';
import { listedChanges } from '../../../../../shared/sources/smaregi/till-listed.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 15, 1, 0, s)).toISOString();
const sale = (id: string, over: Record<string, string> = {}) => ({
  transactionHeadId: id,
  transactionHeadDivision: '1',
  cancelDivision: '0',
  spendPoint: '0',
  newPoint: '0',
  transactionDateTime: at(20),
  updDateTime: at(20),
  ...over,
});
const note = (marker: string, learnedAt: string): TillMirrorRecord => ({
  pk: `till-mirror#smaregi#${marker}`,
  kind: 'till_mirror',
  source: 'smaregi',
  marker,
  memberId: 'm1',
  points: -200,
  state: 'till',
  createdAt: learnedAt,
});

describe('what the member’s listed till transactions add to an add’s window', () => {
  it('counts a sale spending 200 we were not told of as a maybe of -200, unexplained', () => {
    expect(listedChanges([sale('64', { spendPoint: '200' })], [])).toEqual({
      maybes: [{ points: -200, certain: false }],
      unexplained: ['64'],
      uncounted: false,
    });
  });

  it('leaves out a sale whose spend a note learned after its last change already counts', () => {
    const noted = note('lp1:smaregi:order:64%2Fspend-1', at(25));
    expect(listedChanges([sale('64', { spendPoint: '200' })], [noted])).toEqual({ maybes: [], unexplained: [], uncounted: false });
  });

  it('does not count a sale edited after its note (its state does not say by how much the point moved): unexplained, uncounted', () => {
    const noted = note('lp1:smaregi:order:64%2Fspend-1', at(25));
    const edited = sale('64', { spendPoint: '100', updDateTime: new Date(Date.parse(at(20)) + 5 * 60_000).toISOString() });
    expect(listedChanges([edited], [noted])).toEqual({ maybes: [], unexplained: ['64'], uncounted: true });
  });

  it('does not count a staff point change or a void either', () => {
    const staff = sale('65', { transactionHeadDivision: '6', newPoint: '300' });
    const voided = sale('66', { cancelDivision: '1', spendPoint: '50' });
    expect(listedChanges([staff, voided], [])).toEqual({ maybes: [], unexplained: ['65', '66'], uncounted: true });
  });

  it('finds nothing in a fresh sale that spent and earned no points', () => {
    expect(listedChanges([sale('67')], [])).toEqual({ maybes: [], unexplained: [], uncounted: false });
  });
});
