import type { LinkReport } from './links.js';
import type { Mismatch } from './compare.js';
import type { FaultTally } from './faults.js';
import type { FinalAudit } from './final-audit.js';
import type { LateCommitReport } from './late-commits.js';
import type { HoldBackReport } from './hold-back.js';
import type { LatencyReport, SlowEvent } from './latency.js';
import type { Scenario } from './scenario.js';

/** What a chaos run found, and how it is printed. The last line is the machine-readable verdict. */

export interface UnfinishedEvent {
  key: string;
  why: string;
}

export interface ChaosResult {
  seed: number;
  scenario: Scenario['counts'] & { events: number; deliveries: number; customers: number };
  faults: FaultTally;
  points: {
    expected: { credited: number; debited: number };
    observed: { credited: number; debited: number };
  };
  /** Final outcomes per reason, from the ledger. */
  outcomes: Record<string, number>;
  queue: { deadLettered: number; redriven: number; received: number; sent: number; deduplicated: number; deferrals: number };
  /** Messages that reached the dead-letter list during the run (redriven or not). */
  deadLettered: number;
  /** The timing settings in force (npm start's defaults). */
  timing: Record<string, number>;
  /** Simulated seconds the run took (the clock jumps while nothing runs). */
  simulatedSeconds: number;
  holdBack: HoldBackReport;
  /** From acceptance to final outcome per event, and the time messages sat behind a deferring one of their group. */
  latency: LatencyReport;
  /** With --outage: the backlog when the upstream came back, and how long it took to drain (simulated). */
  recovery?: { backlog: number; drainedSeconds: number | undefined };
  /** Report lines of the run's disturbances (outage...). */
  disturbances: string[];
  upstreamRequests: Record<string, number>;
  /** Members linked and shop customers enrolled mid-run (links.ts). */
  links?: LinkReport;
  /** The final audit, run once the queue drained and every late commit landed (final-audit.ts). */
  audit?: FinalAudit;
  /** Late commits and the history lag (late-commits.ts); absent with `--no-late-commits`. */
  lateCommits?: LateCommitReport;
  /** Extra entries of doubled markers reversed by the final audit (or, while it reverses none, seen doubled). */
  reversed?: number;
  mismatches: Mismatch[];
  /** For each order with a mismatch or an unfinished event: its events, history entries and ledger records. */
  evidence: string[];
  unfinished: UnfinishedEvent[];
  durationMs: number;
}

export function totalFaults(faults: FaultTally): number {
  return faults.emulator + faults.crashes + faults.tokenExpiries + faults.leaseExpiries + (faults.outages ?? 0);
}

export function verdictLine(
  result: Pick<ChaosResult, 'scenario' | 'faults' | 'mismatches' | 'unfinished' | 'deadLettered' | 'reversed'> & {
    lateCommits?: Pick<LateCommitReport, 'armed'>;
    latency?: Pick<LatencyReport, 'p99Seconds' | 'maxSeconds' | 'p99OursSeconds'>;
    recovery?: { backlog: number; drainedSeconds: number | undefined };
  },
): string {
  const base = `chaos: events=${result.scenario.events} faults=${totalFaults(result.faults)} mismatches=${result.mismatches.length} unfinished=${result.unfinished.length} dead_lettered=${result.deadLettered}`;
  const ours = result.latency ? ` latency_p99_ours_s=${seconds(result.latency.p99OursSeconds)}` : '';
  const recovery = result.recovery
    ? ` backlog=${result.recovery.backlog} drained_s=${result.recovery.drainedSeconds === undefined ? 'never' : Math.round(result.recovery.drainedSeconds)}`
    : '';
  const latency = result.latency
    ? ` latency_p99_s=${seconds(result.latency.p99Seconds)} latency_max_s=${seconds(result.latency.maxSeconds)}`
    : '';
  const harsher = ` late_commits=${result.lateCommits?.armed ?? 0} reversed=${result.reversed ?? 0}`;
  return `${base}${ours}${recovery}${latency}${harsher}`;
}

const seconds = (s: number) => (Math.round(s * 10) / 10).toString();

const slowLine = (e: SlowEvent): string =>
  `${e.key} ${seconds(e.seconds)} s, ${e.outcome ?? '?'}, ${e.attempts ?? '?'} attempts${e.lastError ? `, last error: ${e.lastError}` : ''}${e.waits ? `; set aside for: ${e.waits.join(', ')}` : ''}`;

const list = (record: Record<string, number>): string =>
  Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

export function formatReport(result: ChaosResult, maxListed = 20): string[] {
  const s = result.scenario;
  const f = result.faults;
  const hb = result.holdBack;
  const lines = [
    `chaos run: seed ${result.seed}, ${s.events} events, ${s.deliveries} deliveries, ${s.customers} customers, ${(result.durationMs / 1000).toFixed(1)} s (${result.simulatedSeconds.toFixed(0)} s simulated)`,
    `  timing (npm start's defaults): ${list(result.timing)}`,
    `  events: ${s.purchases} purchases, ${s.refunds} refunds (${s.cancellations} cancellations, ${s.orphanRefunds} without purchase); ${s.provisional ?? 0} orders earn at fulfilment (${s.fulfilments ?? 0} orders/fulfilled deliveries, ${s.partials ?? 0} orders/partially_fulfilled)`,
    `  deliveries: ${s.duplicates} duplicates (${s.concurrentDuplicates} concurrent), ${s.reordered} reordered; ${f.directDuplicates} queued messages also delivered at once to a second worker`,
    `  faults: ${totalFaults(f)} = ${f.emulator} emulator (armed) + ${f.crashes} worker crashes + ${f.leaseExpiries} lease expiries + ${f.tokenExpiries} token expiries + ${f.outages ?? 0} outages`,
    `    emulator by kind: ${list(f.byKind)}; ${f.armedLater ?? 0} drawn while the worker had not called since the last was armed, armed once it did (${f.neverArmed ?? 0} never); ${f.waitedForRoute ?? 0} waited for their route's last fault to fire (${f.movedToFreeRoute ?? 0} of them then moved to a free route)`,
    `    emulator by route: ${list(f.byRoute)}`,
    `    crashes by step: ${list(f.crashesByStep)}`,
    `    steps reached: ${list(f.stepsSeen)}`,
    `  points credited: expected ${result.points.expected.credited}, observed ${result.points.observed.credited}`,
    `  points debited: expected ${result.points.expected.debited}, observed ${result.points.observed.debited}`,
    `  outcomes: ${list(result.outcomes)}`,
    `  queue: ${result.queue.sent} sent, ${result.queue.deduplicated} deduplicated, ${result.queue.received} receives, ${result.queue.deferrals} deferrals (waiting, not failing), ${result.queue.deadLettered} dead-lettered, ${result.queue.redriven} redriven`,
    ...result.disturbances,
    `  POS sales queued behind a return of the same customer: ${hb.behindReturn.sales}, waited max ${hb.behindReturn.maxSeconds.toFixed(1)} s, median ${hb.behindReturn.p50Seconds.toFixed(1)} s (simulated); other POS sales: ${hb.otherSales.sales}, max ${hb.otherSales.maxSeconds.toFixed(1)} s, median ${hb.otherSales.p50Seconds.toFixed(1)} s`,
    `  latency (acceptance, or its purchase's for a refund, to final outcome, simulated; ${result.latency.parked} parked refunds apart): ${result.latency.events} events, p50 ${seconds(result.latency.p50Seconds)} s, p99 ${seconds(result.latency.p99Seconds)} s, max ${seconds(result.latency.maxSeconds)} s (${result.latency.slowest ?? '-'})`,
    ...result.latency.slowestEvents.slice(0, 5).map((e) => `    slow: ${slowLine(e)}`),
    `  latency ours (without what waits for a person: an order credited after its customer linked counts from the link; parked refunds apart): p99 ${seconds(result.latency.p99OursSeconds)} s; ${result.latency.awaitingPerson.events} events waited for their customer's link or enrolment (whole latency p99 ${seconds(result.latency.awaitingPerson.p99Seconds)} s, max ${seconds(result.latency.awaitingPerson.maxSeconds)} s)`,
    ...result.latency.slowestOurs.slice(0, 10).map((e) => `    slow (ours): ${slowLine(e)}`),
    `  held back behind a deferring message of the group: ${result.latency.heldBack.messages} messages, max ${seconds(result.latency.heldBack.maxSeconds)} s, ${result.latency.heldBack.over5s} over 5 s (outage excluded)`,
    `  settled: the last balance change ${seconds(result.latency.settledSeconds)} s after the last event was accepted`,
    `  upstream requests: ${list(result.upstreamRequests)}`,
    ...(result.audit ? [`  final ${result.audit.summary}`, ...result.audit.findings.slice(0, maxListed).map((f) => `    ${f}`)] : []),
    `  mismatches: ${result.mismatches.length}`,
    ...result.mismatches
      .slice(0, maxListed)
      .map((m) => `    customer ${m.customer ?? '-'}${m.orderId ? ` order ${m.orderId}` : ''}: ${m.what}`),
    ...(result.evidence.length > 0 ? ['  evidence:', ...result.evidence.slice(0, maxListed * 10).map((e) => `    ${e}`)] : []),
    `  unfinished: ${result.unfinished.length}`,
    ...result.unfinished.slice(0, maxListed).map((u) => `    ${u.key}: ${u.why}`),
    verdictLine(result),
  ];
  return lines;
}
