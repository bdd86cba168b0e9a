import { describe, expect, it } from 'vitest';
import { afterLease, FIRST_SLICE, leaseWant, MAX_SLICE, openSlice, slotExpectedInMs, takeSlot } from '../../../../shared/openapi/index.js';

const MINUTE_END = 60_000;

/** A slice whose container took `calls` at a steady pace from the minute's start to `now`. */
function pacedSlice(calls: number, now: number) {
  const s = openSlice();
  afterLease(s, FIRST_SLICE, FIRST_SLICE);
  afterLease(s, FIRST_SLICE * 2, FIRST_SLICE * 2);
  for (let i = 0; i < calls; i++) takeSlot(s, (i * now) / calls);
  return s;
}

describe('the slices a container leases of the shared budget', () => {
  it('doubles from 20 up to 50 calls while the minute is young', () => {
    const s = openSlice();
    expect(leaseWant(s, 0, MINUTE_END)).toBe(FIRST_SLICE);
    afterLease(s, FIRST_SLICE, FIRST_SLICE);
    expect(leaseWant(s, 0, MINUTE_END)).toBe(40);
    afterLease(s, 40, 40);
    expect(leaseWant(s, 0, MINUTE_END)).toBe(MAX_SLICE);
  });

  it('asks near the minute’s end only for what its pace would spend by then, with a fifth more', () => {
    // 50 calls in 50 s: one a second, 10 s left: 12 calls, not 50 that would be lost at the minute's end.
    expect(leaseWant(pacedSlice(50, 50_000), 50_000, MINUTE_END)).toBe(12);
  });

  it('asks for one call at least, however slow its pace', () => {
    expect(leaseWant(pacedSlice(5, 59_000), 59_990, MINUTE_END)).toBe(1);
  });

  it('stops leasing in a minute once a lease got fewer calls than it asked for', () => {
    const s = openSlice();
    afterLease(s, FIRST_SLICE, 7);
    expect(s.left).toBe(7);
    expect(s.next).toBe(0);
  });
});

describe('when a refused call may expect a slot', () => {
  it('is the next minute’s start when that start was beyond the wait the caller could make', () => {
    expect(slotExpectedInMs(10_000, 25_000)).toBe(50_000);
  });

  it('is the start of the minute after when the next one was in reach and found spent too', () => {
    expect(slotExpectedInMs(50_000, 25_000)).toBe(70_000);
  });
});
