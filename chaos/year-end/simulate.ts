/**
 * The year-end sale as a discrete-event model on a simulated clock: arrivals from 1,000 tills and the
 * web at R receipts a second for M minutes, intake (API Gateway, receiver, SQS FIFO send), N worker
 * containers (each its own token and its own slices of the one shared budget) receiving batches of up
 * to 10 messages and running their FIFO groups side by side, the App Proxy's redemptions on the
 * storefront's share, upstream latency drawn per call (latency.ts), the chaos run's fault and crash
 * density, and every billed request counted for the cost (cost-model.ts). Pure: no HTTP, no DynamoDB,
 * so two simulated hours take seconds (README.md in this folder says what it leaves out).
 */
import { createRandom } from '../prng.js';
import { Agenda } from './heap.js';
import { BudgetCounters, ContainerBudget, MINUTE_MS } from './budget.js';
import { latencySampler, type LatencyModel, YEAR_END_LATENCY } from './latency.js';
import { type Endpoint, type KindName, type Mix, RECEIPT_KINDS, YEAR_END_MIX, checkMix } from './mix.js';

export interface YearEndOptions {
  ratePerSecond: number;
  minutes: number;
  containers: number;
  /** The deployment's upstream budget per endpoint per minute (UPSTREAM_BUDGET_PER_MINUTE). */
  budgetPerMinute: number;
  mix: Mix;
  seed: number;
  /** Chance that an attempt meets an armed upstream fault (the chaos run's `--fault-rate`, default 0.25). */
  faultRate: number;
  /** Chance that an attempt crashes the worker before it ends (the chaos run's `--crash-rate`, 0.03). */
  crashRate: number;
  latency: LatencyModel;
  tills: number;
  webCustomers: number;
  batchSize: number;
  clientTimeoutMs: number;
  /** The worker's timeout (production: 30 s); a call that cannot wait for its slot within it is deferred. */
  invocationMs: number;
  /** The queue's visibility timeout: how long a crashed attempt's message stays invisible. */
  visibilityMs: number;
  maxReceiveCount: number;
  /** How long after the last arrival the run waits for the queue to empty before it counts the rest unfinished. */
  drainLimitMs: number;
}

export const YEAR_END_DEFAULTS: YearEndOptions = {
  ratePerSecond: 30,
  minutes: 120,
  containers: 9,
  budgetPerMinute: 1_800,
  mix: YEAR_END_MIX,
  seed: 1,
  faultRate: 0.25,
  crashRate: 0.03,
  latency: YEAR_END_LATENCY,
  tills: 1_000,
  webCustomers: 200_000,
  batchSize: 10,
  clientTimeoutMs: 5_000,
  invocationMs: 30_000,
  visibilityMs: 180_000,
  maxReceiveCount: 10,
  drainLimitMs: 24 * 3_600_000,
};

/** In-process time of one message besides its calls: a ledger write costs 10 ms, the handler's own work ~5 ms. */
const LEDGER_WRITE_MS = 10;
const HANDLER_CPU_MS = 5;
/** A token lives an hour; the client renews it 5 minutes early. */
const TOKEN_RENEW_MS = 55 * 60_000;
/** The client's backoff before it sends a failed read again. */
const READ_RETRY_MS = 200;
/** SQS long poll: an idle poller sends one receive every 20 s. */
const LONG_POLL_MS = 20_000;
/** Receiver: handler time plus one SQS SendMessage round trip (bench/cost.ts's figures). */
const RECEIVER_MS = 17;

interface Receipt {
  kind: KindName;
  group: string;
  arrivedAt: number;
  doneAt?: number;
  /** Steps of its calls done (persisted on the record: a retry starts after them, the member id kept). */
  step: number;
  /** Per state-changing step, how many times it landed upstream (exactly once is right). */
  landed: number[];
  receives: number;
  deadLettered?: boolean;
}

export interface Usage {
  apiGatewayRequests: number;
  receiverInvocations: number;
  workerInvocations: number;
  appProxyInvocations: number;
  receiverMs: number;
  workerMs: number;
  appProxyMs: number;
  sqsSends: number;
  sqsReceives: number;
  sqsEmptyReceives: number;
  sqsDeletes: number;
  sqsVisibilityChanges: number;
  ledgerWrites: number;
  ledgerReads: number;
  budgetLeases: number;
  /** Messages the workers handled (attempts), and the App Proxy's requests: what the log lines follow. */
  workerAttempts: number;
}

export interface YearEndResult {
  options: YearEndOptions;
  receipts: number;
  arrivalPerSecond: number;
  throughputPerSecond: number;
  /** Per endpoint, the most calls it took in one simulated minute over every container and caller. */
  maxCallsPerMinute: Map<string, number>;
  oldestSeconds: number;
  drainedSeconds: number;
  mismatches: number;
  unfinished: number;
  deadLettered: number;
  /** Backlog when arrivals ended: queued and not yet done. */
  backlogAtEnd: number;
  usage: Usage;
}

const isWrite = (e: Endpoint) => e === 'calculatePoints' || e === 'grantPoints';

export function simulateYearEnd(o: YearEndOptions): YearEndResult {
  checkMix(o.mix);
  const agenda = new Agenda();
  const random = createRandom(o.seed);
  const arrivalsRandom = random.fork('arrivals');
  const faultRandom = random.fork('faults');
  const sample = latencySampler(o.latency, random.fork('latency'));
  const counters = new BudgetCounters(o.budgetPerMinute);
  const usage: Usage = {
    apiGatewayRequests: 0,
    receiverInvocations: 0,
    workerInvocations: 0,
    appProxyInvocations: 0,
    receiverMs: 0,
    workerMs: 0,
    appProxyMs: 0,
    sqsSends: 0,
    sqsReceives: 0,
    sqsEmptyReceives: 0,
    sqsDeletes: 0,
    sqsVisibilityChanges: 0,
    ledgerWrites: 0,
    ledgerReads: 0,
    budgetLeases: 0,
    workerAttempts: 0,
  };
  const callsByMinute = new Map<string, Map<number, number>>();
  const countCall = (endpoint: string, at: number) => {
    let byMinute = callsByMinute.get(endpoint);
    if (!byMinute) {
      byMinute = new Map();
      callsByMinute.set(endpoint, byMinute);
    }
    const minute = Math.floor(at / MINUTE_MS);
    byMinute.set(minute, (byMinute.get(minute) ?? 0) + 1);
  };

  // ---- the queue: FIFO groups, a group in flight holds its later messages back ----
  const groups = new Map<string, Receipt[]>();
  const inFlight = new Set<string>();
  const ready: string[] = [];
  let readyHead = 0;
  const readySet = new Set<string>();
  const makeReady = (group: string) => {
    if (inFlight.has(group) || readySet.has(group) || (groups.get(group)?.length ?? 0) === 0) return;
    ready.push(group);
    readySet.add(group);
    wakeIdle();
  };
  const all: Receipt[] = [];

  // ---- one caller's upstream call: budget slot, token, latency, timeouts ----
  interface Caller {
    budget: ContainerBudget;
    tokenUntil: number;
  }
  /**
   * Calls `endpoint` at the agenda's now; `then` when its answer is in ('failed': an error or a timeout),
   * or at once with 'refused' when no slot of the budget is in reach of `maxWaitMs`.
   */
  const call = (c: Caller, endpoint: string, failIt: boolean, maxWaitMs: number, then: (result: 'ok' | 'failed' | 'refused') => void) => {
    const token = (next: () => void) => {
      if (agenda.now < c.tokenUntil) return next();
      countCall('token', agenda.now);
      const ms = Math.min(sample(), o.clientTimeoutMs);
      agenda.after(ms, () => {
        c.tokenUntil = agenda.now + TOKEN_RENEW_MS;
        next();
      });
    };
    token(() => {
      const slot = c.budget.take(endpoint, agenda.now, maxWaitMs);
      if (slot.waitMs === Number.POSITIVE_INFINITY) return then('refused');
      agenda.after(slot.waitMs + slot.leased * LEDGER_WRITE_MS, () => {
        countCall(endpoint, agenda.now);
        const ms = sample();
        const ok = !failIt && ms <= o.clientTimeoutMs;
        agenda.after(Math.min(ms, o.clientTimeoutMs), () => then(ok ? 'ok' : 'failed'));
      });
    });
  };

  // ---- workers ----
  interface Container extends Caller {
    idleSince: number | undefined;
  }
  const containers: Container[] = [];
  for (let i = 0; i < o.containers; i++) {
    containers.push({ budget: new ContainerBudget(counters, 'bulk'), tokenUntil: 0, idleSince: 0 });
  }
  const wakeIdle = () => {
    for (const c of containers) {
      if (c.idleSince !== undefined) {
        usage.sqsEmptyReceives += Math.floor((agenda.now - c.idleSince) / LONG_POLL_MS);
        c.idleSince = undefined;
        agenda.after(0, () => poll(c));
        return;
      }
    }
  };

  const poll = (c: Container) => {
    if (readyHead >= ready.length) {
      c.idleSince = agenda.now;
      return;
    }
    usage.sqsReceives += 1;
    usage.workerInvocations += 1;
    const started = agenda.now;
    const batch: { group: string; messages: Receipt[] }[] = [];
    let taken = 0;
    while (taken < o.batchSize && readyHead < ready.length) {
      const group = ready[readyHead++] as string;
      readySet.delete(group);
      const queued = groups.get(group) as Receipt[];
      const messages = queued.splice(0, o.batchSize - taken);
      inFlight.add(group);
      batch.push({ group, messages });
      taken += messages.length;
    }
    if (readyHead > 4096 && readyHead * 2 > ready.length) {
      ready.splice(0, readyHead);
      readyHead = 0;
    }
    let running = batch.length;
    const deadline = started + o.invocationMs;
    for (const { group, messages } of batch) {
      runGroup(c, messages, deadline, (returned) => {
        // The messages not done go back to the queue's head, in their order.
        if (returned.length > 0) groups.set(group, [...returned, ...(groups.get(group) ?? [])]);
        running -= 1;
        if (running === 0) endBatch(c, started, batch);
      });
    }
  };

  const endBatch = (c: Container, started: number, batch: { group: string }[]) => {
    usage.workerMs += Math.ceil(agenda.now - started);
    usage.sqsDeletes += 1;
    for (const { group } of batch) {
      inFlight.delete(group);
    }
    for (const { group } of batch) {
      const head = groups.get(group)?.[0];
      // A message back from a crash or a deferral stays invisible until its time comes.
      if (head && (visibleAt.get(head) ?? 0) > agenda.now) agenda.at(visibleAt.get(head) as number, () => makeReady(group));
      else makeReady(group);
    }
    poll(c);
  };

  const visibleAt = new Map<Receipt, number>();

  /** Runs a group's messages one after another; returns (via `done`) those left for a later receive. */
  const runGroup = (c: Container, messages: Receipt[], deadline: number, done: (returned: Receipt[]) => void) => {
    const next = (i: number) => {
      if (i >= messages.length) return done([]);
      const r = messages[i] as Receipt;
      const vis = visibleAt.get(r);
      if (vis !== undefined && vis > agenda.now) return done(messages.slice(i));
      runAttempt(c, r, deadline, (outcome) => {
        if (outcome === 'done' || outcome === 'dead') return next(i + 1);
        // Failed (crash) or deferred: it and the rest of its group wait for a later receive.
        done(messages.slice(i));
      });
    };
    next(0);
  };

  const runAttempt = (c: Container, r: Receipt, deadline: number, then: (outcome: 'done' | 'failed' | 'deferred' | 'dead') => void) => {
    r.receives += 1;
    usage.workerAttempts += 1;
    if (r.receives > o.maxReceiveCount) {
      r.deadLettered = true;
      return then('dead');
    }
    const calls = RECEIPT_KINDS[r.kind].calls as readonly Endpoint[];
    // A retry reads its record first (the member id and the steps done are on it).
    if (r.receives > 1) usage.ledgerReads += 1;
    usage.ledgerWrites += 1; // the lease
    const faulty = faultRandom.chance(o.faultRate) ? faultRandom.int(r.step, calls.length - 1) : -1;
    const crashAt = faultRandom.chance(o.crashRate) ? faultRandom.int(r.step, calls.length) : -1;
    let faultArmed = true;
    const stepAt = () => {
      if (r.step === crashAt) {
        visibleAt.set(r, agenda.now + o.visibilityMs);
        return then('failed');
      }
      if (r.step >= calls.length) {
        usage.ledgerWrites += 1; // the outcome
        agenda.after(HANDLER_CPU_MS, () => {
          r.doneAt = agenda.now;
          then('done');
        });
        return;
      }
      const endpoint = calls[r.step] as Endpoint;
      // No call starts that cannot wait for its slot inside the invocation: it is deferred to the next minute.
      const remaining = deadline - agenda.now - 2_000;
      if (remaining < o.clientTimeoutMs) {
        r.receives -= 1; // a deferral is not a failed receive: it never counts towards the dead-letter queue
        usage.sqsVisibilityChanges += 1;
        visibleAt.set(r, agenda.now + 1_000);
        return then('deferred');
      }
      const failIt = r.step === faulty && faultArmed;
      call(c, endpoint, failIt, remaining - o.clientTimeoutMs, (result) => {
        if (result === 'refused') {
          // The budget's minute is spent and the next is out of the invocation's reach: back to the
          // queue until that minute starts (as the worker defers a message), the group behind it.
          r.receives -= 1;
          usage.sqsVisibilityChanges += 1;
          visibleAt.set(r, (Math.floor(agenda.now / MINUTE_MS) + 1) * MINUTE_MS);
          return then('deferred');
        }
        if (result === 'ok') {
          if (isWrite(endpoint)) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
          r.step += 1;
          return stepAt();
        }
        faultArmed = false;
        if (!isWrite(endpoint)) return agenda.after(READ_RETRY_MS, stepAt);
        // Outcome unknown: the history search (one listPoints) finds the marker if it ran; else it is sent again.
        const ran = faultRandom.chance(0.5);
        if (ran) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
        call(c, 'listPoints', false, Number.POSITIVE_INFINITY, () => {
          if (ran) r.step += 1;
          stepAt();
        });
      });
    };
    agenda.after(LEDGER_WRITE_MS + (r.receives > 1 ? LEDGER_WRITE_MS : 0), stepAt);
  };

  // ---- the App Proxy: one container per concurrent shopper, each on the storefront's share ----
  const appProxyIdle: Caller[] = [];
  const redeem = (r: Receipt) => {
    usage.apiGatewayRequests += 1;
    usage.appProxyInvocations += 1;
    const c = appProxyIdle.pop() ?? { budget: new ContainerBudget(counters, 'storefront'), tokenUntil: 0 };
    const started = agenda.now;
    const calls = RECEIPT_KINDS[r.kind].calls as readonly Endpoint[];
    const stepAt = () => {
      if (r.step >= calls.length) {
        usage.ledgerWrites += 2;
        r.doneAt = agenda.now + 2 * LEDGER_WRITE_MS;
        usage.appProxyMs += Math.ceil(r.doneAt - started + HANDLER_CPU_MS);
        appProxyIdle.push(c);
        return;
      }
      const endpoint = calls[r.step] as Endpoint;
      call(c, endpoint, false, Number.POSITIVE_INFINITY, (result) => {
        if (result === 'ok') {
          if (isWrite(endpoint)) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
          r.step += 1;
        }
        // A failed storefront call is the shopper's to try again: the model tries again at once.
        stepAt();
      });
    };
    stepAt();
  };

  // ---- arrivals: Poisson at R a second from the tills and the web ----
  const kinds = Object.entries(o.mix) as [KindName, number][];
  const drawKind = (): KindName => {
    let u = arrivalsRandom.next();
    for (const [name, share] of kinds) {
      u -= share;
      if (u < 0) return name;
    }
    return (kinds[kinds.length - 1] as [KindName, number])[0];
  };
  const arrivalsEnd = o.minutes * MINUTE_MS;
  const arrive = () => {
    const kind = drawKind();
    const atTill = kind === 'smaregi' || kind === 'smaregi_spend';
    const group = atTill ? `till-${arrivalsRandom.int(1, o.tills)}` : `web-${arrivalsRandom.int(1, o.webCustomers)}`;
    const r: Receipt = { kind, group, arrivedAt: agenda.now, step: 0, landed: [], receives: 0 };
    all.push(r);
    if (!RECEIPT_KINDS[kind].queued) redeem(r);
    else {
      usage.apiGatewayRequests += 1;
      usage.receiverInvocations += 1;
      usage.receiverMs += RECEIVER_MS;
      usage.sqsSends += 1;
      let queued = groups.get(group);
      if (!queued) {
        queued = [];
        groups.set(group, queued);
      }
      queued.push(r);
      makeReady(group);
    }
    const gap = -Math.log(1 - arrivalsRandom.next()) * (1000 / o.ratePerSecond);
    if (agenda.now + gap < arrivalsEnd) agenda.after(gap, arrive);
  };
  agenda.at(0, arrive);

  agenda.runUntil(arrivalsEnd);
  const backlogAtEnd = all.filter((r) => r.doneAt === undefined && !r.deadLettered).length;
  agenda.runUntil(arrivalsEnd + o.drainLimitMs);
  for (const c of containers) {
    if (c.idleSince !== undefined) usage.sqsEmptyReceives += Math.floor((agenda.now - c.idleSince) / LONG_POLL_MS);
  }

  const finished = all.filter((r) => r.doneAt !== undefined);
  const peakFrom = arrivalsEnd / 2;
  const inPeak = finished.filter((r) => (r.doneAt as number) >= peakFrom && (r.doneAt as number) < arrivalsEnd).length;
  const lastDone = finished.reduce((m, r) => Math.max(m, r.doneAt as number), 0);
  const maxCallsPerMinute = new Map<string, number>();
  for (const [endpoint, byMinute] of callsByMinute) maxCallsPerMinute.set(endpoint, Math.max(...byMinute.values()));
  const mismatches = finished.filter((r) => {
    const calls = RECEIPT_KINDS[r.kind].calls as readonly Endpoint[];
    return calls.some((e, i) => isWrite(e) && r.landed[i] !== 1);
  }).length;
  return {
    options: o,
    receipts: all.length,
    arrivalPerSecond: all.length / (arrivalsEnd / 1000),
    throughputPerSecond: inPeak / ((arrivalsEnd - peakFrom) / 1000),
    maxCallsPerMinute,
    oldestSeconds: finished.reduce((m, r) => Math.max(m, (r.doneAt as number) - r.arrivedAt), 0) / 1000,
    drainedSeconds: Math.max(0, lastDone - arrivalsEnd) / 1000,
    mismatches,
    unfinished: all.filter((r) => r.doneAt === undefined && !r.deadLettered).length,
    deadLettered: all.filter((r) => r.deadLettered).length,
    backlogAtEnd,
    usage: { ...usage, budgetLeases: counters.leaseRequests },
  };
}
