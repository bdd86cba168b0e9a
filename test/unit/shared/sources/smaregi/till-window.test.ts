import { describe, expect, it } from 'vitest';
import type { TillMirrorRecord } from '../../../../../shared/ledger/index.js';
import { explainPoint, windowChanges } from '../../../../../shared/sources/smaregi/till-window.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 15, 1, 0, s)).toISOString();
const HORIZON_MS = 60_000;
const step = (over: Partial<TillMirrorRecord>): TillMirrorRecord => ({
  pk: `till-mirror#smaregi#${over.marker ?? 'a'}`,
  kind: 'till_mirror',
  source: 'smaregi',
  marker: 'a',
  memberId: 'm1',
  points: -300,
  state: 'sending',
  createdAt: at(0),
  ...over,
});
const inDoubt = step({ readAt: at(10), sentAt: at(11) });

describe('what the till point says of an add in doubt', () => {
  it('reads an add as landed when the point is before + points + a change that surely came after', () => {
    expect(explainPoint({ before: 1000, points: -300, now: 800, changes: [{ points: 100, certain: true }] })).toBe('landed');
  });

  it('reads an add as lost when the point is before plus a till spend that may have come in between', () => {
    expect(explainPoint({ before: 1000, points: -300, now: 950, changes: [{ points: -50, certain: false }] })).toBe('not_landed');
  });

  it('cannot tell when a maybe-change equals the add itself', () => {
    expect(explainPoint({ before: 1000, points: -300, now: 700, changes: [{ points: -300, certain: false }] })).toBe('both');
  });

  it('finds nothing to explain a change it knows nothing of', () => {
    expect(explainPoint({ before: 1000, points: -300, now: 650, changes: [] })).toBe('neither');
  });
});

describe('which of the member’s records count around a step’s read', () => {
  it('counts a step sent after this one and done before the point was read as certain', () => {
    const later = step({ marker: 'b', pk: 'b', points: 100, state: 'done', sentAt: at(12), updatedAt: at(13) });
    expect(windowChanges(inDoubt, [later], [later], HORIZON_MS)).toEqual([{ points: 100, certain: true }]);
  });

  it('leaves out a step answered before the read began, and one in doubt sent a horizon before it', () => {
    const answered = step({ marker: 'b', pk: 'b', points: 100, state: 'done', sentAt: at(1), updatedAt: at(9) });
    const old = step({
      marker: 'c',
      pk: 'c',
      points: 50,
      state: 'conflict',
      sentAt: new Date(Date.parse(at(10)) - HORIZON_MS).toISOString(),
    });
    expect(windowChanges(inDoubt, [answered, old], [answered, old], HORIZON_MS)).toEqual([]);
  });

  it('counts a till spend learned after the read began as a maybe (the till’s clock is not ours)', () => {
    const spend = step({ marker: 's', pk: 's', points: -200, state: 'till', createdAt: at(20) });
    expect(windowChanges(inDoubt, [spend], [spend], HORIZON_MS)).toEqual([{ points: -200, certain: false }]);
  });

  it('counts nothing for a step written before reads were timed', () => {
    const later = step({ marker: 'b', pk: 'b', points: 100, state: 'done', sentAt: at(12), updatedAt: at(13) });
    expect(windowChanges(step({}), [later], [later], HORIZON_MS)).toEqual([]);
  });
});
