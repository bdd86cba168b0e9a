import { describe, expect, it } from 'vitest';
import { emptyTally } from '../../chaos/faults.js';
import { formatReport, type ChaosResult } from '../../chaos/report.js';

function result(overrides: Partial<ChaosResult> = {}): ChaosResult {
  const faults = { ...emptyTally(), emulator: 7, crashes: 2, leaseExpiries: 3, tokenExpiries: 1 };
  return {
    seed: 1,
    scenario: {
      events: 120,
      deliveries: 140,
      customers: 20,
      purchases: 70,
      refunds: 50,
      cancellations: 5,
      orphanRefunds: 1,
      duplicates: 20,
      concurrentDuplicates: 3,
      reordered: 9,
    },
    faults,
    points: { expected: { credited: 10, debited: 4 }, observed: { credited: 10, debited: 4 } },
    outcomes: {},
    queue: { deadLettered: 0, redriven: 0, received: 0, sent: 0, deduplicated: 0, deferrals: 0 },
    deadLettered: 2,
    timing: { leaseSeconds: 45 },
    simulatedSeconds: 10,
    holdBack: { behindReturn: { sales: 0, maxSeconds: 0, p50Seconds: 0 }, otherSales: { sales: 0, maxSeconds: 0, p50Seconds: 0 } },
    latency: {
      events: 118,
      p50Seconds: 1.2,
      p99Seconds: 47.25,
      maxSeconds: 58,
      slowest: 'k',
      slowestEvents: [],
      heldBack: { messages: 0, maxSeconds: 0, over5s: 0 },
      settledSeconds: 31.5,
      parked: 2,
      p99OursSeconds: 12.34,
      slowestOurs: [],
      awaitingPerson: { events: 3, p99Seconds: 58, maxSeconds: 58 },
    },
    disturbances: [],
    upstreamRequests: {},
    mismatches: [],
    evidence: [],
    unfinished: [],
    durationMs: 1000,
    ...overrides,
  };
}

describe('the chaos report', () => {
  it('ends with the verdict line counting events, faults, mismatches, unfinished and dead-lettered events', () => {
    const lines = formatReport(
      result({ mismatches: [{ customer: 3, what: 'balance 5, expected 4' }], unfinished: [{ key: 'k', why: 'w' }] }),
    );
    expect(lines.at(-1)).toBe(
      'chaos: events=120 faults=13 mismatches=1 unfinished=1 dead_lettered=2 latency_p99_ours_s=12.3 latency_p99_s=47.3 latency_max_s=58 late_commits=0 reversed=0',
    );
  });

  it('ends the verdict line with the late commits armed and the doubled entries the final audit reversed', () => {
    const lateCommits = {
      armed: 9,
      byAnswer: { reset: 3, hold: 3, 'status 502': 3 },
      drawnBeyond: 2,
      landedInside: 7,
      landedBeyond: 2,
      neverFired: 0,
      maxInsideSeconds: 80,
      minBeyondSeconds: 300,
      lagChanges: 4,
      lagMaxMs: 1500,
    };
    expect(formatReport(result({ lateCommits, reversed: 1 })).at(-1)).toBe(
      'chaos: events=120 faults=13 mismatches=0 unfinished=0 dead_lettered=2 latency_p99_ours_s=12.3 latency_p99_s=47.3 latency_max_s=58 late_commits=9 reversed=1',
    );
  });

  it("gives the final audit's summary and findings", () => {
    const audit = { summary: 'audit: orders=3 refunds=1 drift=1', findings: ['duplicate_credit shopify 5 -'], reversed: undefined };
    const lines = formatReport(result({ audit }));
    expect(lines).toContain('  final audit: orders=3 refunds=1 drift=1');
    expect(lines).toContain('    duplicate_credit shopify 5 -');
  });

  it('gives the outage backlog and its drain time before the latency when the run had an outage', () => {
    const lines = formatReport(result({ recovery: { backlog: 176, drainedSeconds: 41.6 } }));
    expect(lines.at(-1)).toBe(
      'chaos: events=120 faults=13 mismatches=0 unfinished=0 dead_lettered=2 latency_p99_ours_s=12.3 backlog=176 drained_s=42 latency_p99_s=47.3 latency_max_s=58 late_commits=0 reversed=0',
    );
  });

  it('names each mismatch with its customer and order', () => {
    const lines = formatReport(
      result({ mismatches: [{ customer: 3, orderId: '512345678901234567', what: 'credits [5, 5], expected [5]' }] }),
    );
    expect(lines).toContain('    customer 3 order 512345678901234567: credits [5, 5], expected [5]');
  });

  it('says how long after the last accepted event the balances settled', () => {
    expect(formatReport(result())).toContain('  settled: the last balance change 31.5 s after the last event was accepted');
  });
});
