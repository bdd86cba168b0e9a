/**
 * The year-end sale as a discrete-event model on a simulated clock: arrivals from 1,000 tills and the
 * web at R receipts a second for M minutes, intake (API Gateway, receiver, SQS FIFO send), N worker
 * containers (each its own token and its own slices of the one shared budget) receiving batches of up
 * to 10 messages and running their FIFO groups side by side, the App Proxy's redemptions on the
 * storefront's share, upstream latency drawn per call (latency.ts), the chaos run's fault and crash
 * density, and every billed request counted for the cost (cost-model.ts). Pure: no HTTP, no DynamoDB,
 * so two simulated hours take seconds (chaos/README.md, "The year-end sale", says what it leaves out).
 */
import { slotExpectedInMs } from '../../shared/openapi/index.js';
import { messageGroupId } from '../../shared/queue/index.js';
import { budgetDeferralSeconds } from '../../shared/retry/index.js';
import { createRandom, type Random } from '../prng.js';
import { BudgetCounters, ContainerBudget, MINUTE_MS } from './budget.js';
import { Agenda } from './heap.js';
import { latencySampler } from './latency.js';
import { checkMix, type Endpoint, type KindName, RECEIPT_KINDS } from './mix.js';
import {
  emptyUsage,
  HANDLER_CPU_MS,
  LEDGER_WRITE_MS,
  LONG_POLL_MS,
  READ_RETRY_MS,
  RECEIVER_MS,
  type Receipt,
  TOKEN_RENEW_MS,
  type YearEndOptions,
  type YearEndResult,
} from './types.js';

export { YEAR_END_DEFAULTS, type YearEndOptions, type YearEndResult } from './types.js';
export type { Usage } from './types.js';

const isWrite = (e: Endpoint) => e === 'calculatePoints' || e === 'grantPoints';
const callsOf = (r: Receipt) => RECEIPT_KINDS[r.kind].calls as readonly Endpoint[];

/** One caller of the Open API: its token and its slices of the budget (a container, as Lambda runs it). */
interface Caller {
  budget: ContainerBudget;
  tokenUntil: number;
}
interface Container extends Caller {
  idleSince: number | undefined;
}
type CallResult = 'ok' | 'failed' | 'refused';
/** `set_aside`: waits as a copy in a group of its own, its group going on (shared/consumer/record.ts). */
type Outcome = 'done' | 'failed' | 'deferred' | 'set_aside' | 'dead';

class YearEndModel {
  readonly agenda = new Agenda();
  readonly usage = emptyUsage();
  readonly all: Receipt[] = [];
  readonly callsByMinute = new Map<string, Map<number, number>>();
  readonly counters: BudgetCounters;
  private readonly arrivalsRandom: Random;
  private readonly faultRandom: Random;
  private readonly deferRandom: Random;
  private asideGroups = 0;
  private readonly sample: () => number;
  // The queue: FIFO groups; a group in flight holds its later messages back.
  private readonly groups = new Map<string, Receipt[]>();
  private readonly inFlight = new Set<string>();
  private ready: string[] = [];
  private readyHead = 0;
  private readonly readySet = new Set<string>();
  private readonly visibleAt = new Map<Receipt, number>();
  readonly containers: Container[] = [];
  private readonly appProxyIdle: Caller[] = [];

  constructor(readonly o: YearEndOptions) {
    checkMix(o.mix);
    const random = createRandom(o.seed);
    this.arrivalsRandom = random.fork('arrivals');
    this.faultRandom = random.fork('faults');
    this.deferRandom = random.fork('deferrals');
    this.sample = latencySampler(o.latency, random.fork('latency'));
    this.counters = new BudgetCounters(o.budgetPerMinute);
    for (let i = 0; i < o.containers; i++) {
      this.containers.push({ budget: new ContainerBudget(this.counters, 'bulk'), tokenUntil: 0, idleSince: 0 });
    }
  }

  private countCall(endpoint: string, at: number): void {
    let byMinute = this.callsByMinute.get(endpoint);
    if (!byMinute) {
      byMinute = new Map();
      this.callsByMinute.set(endpoint, byMinute);
    }
    const minute = Math.floor(at / MINUTE_MS);
    byMinute.set(minute, (byMinute.get(minute) ?? 0) + 1);
  }

  private makeReady(group: string): void {
    if (this.inFlight.has(group) || this.readySet.has(group) || (this.groups.get(group)?.length ?? 0) === 0) return;
    this.ready.push(group);
    this.readySet.add(group);
    this.wakeIdle();
  }

  /**
   * Calls `endpoint` now: `then` when its answer is in ('failed': an error or our timeout), or at once
   * with 'refused' when no slot of the budget is in reach of `maxWaitMs`. The token comes first when
   * the caller's has run out (the token route is not on the budget; it is counted apart).
   */
  private call(c: Caller, endpoint: Endpoint, failIt: boolean, maxWaitMs: number, then: (result: CallResult) => void): void {
    const a = this.agenda;
    const send = (waited = 0) => {
      const slot = c.budget.take(endpoint, a.now, maxWaitMs - waited, waited > 0);
      if (slot.waitMs === Number.POSITIVE_INFINITY) {
        then('refused');
        return;
      }
      if (slot.again) {
        a.after(slot.waitMs + slot.leased * LEDGER_WRITE_MS, () => send(waited + slot.waitMs));
        return;
      }
      a.after(slot.waitMs + slot.leased * LEDGER_WRITE_MS, () => {
        this.countCall(endpoint, a.now);
        const ms = this.sample();
        const ok = !failIt && ms <= this.o.clientTimeoutMs;
        a.after(Math.min(ms, this.o.clientTimeoutMs), () => then(ok ? 'ok' : 'failed'));
      });
    };
    if (a.now < c.tokenUntil) {
      send();
      return;
    }
    this.countCall('token', a.now);
    a.after(Math.min(this.sample(), this.o.clientTimeoutMs), () => {
      c.tokenUntil = a.now + TOKEN_RENEW_MS;
      send();
    });
  }

  private wakeIdle(): void {
    const c = this.containers.find((x) => x.idleSince !== undefined);
    if (!c) return;
    this.usage.sqsEmptyReceives += Math.floor((this.agenda.now - (c.idleSince as number)) / LONG_POLL_MS);
    c.idleSince = undefined;
    this.agenda.after(0, () => this.poll(c));
  }

  /** A receive: up to a batch of messages, whole FIFO groups in their order, the groups then run side by side. */
  private poll(c: Container): void {
    if (this.readyHead >= this.ready.length) {
      c.idleSince = this.agenda.now;
      return;
    }
    this.usage.sqsReceives += 1;
    this.usage.workerInvocations += 1;
    const started = this.agenda.now;
    const batch: { group: string; messages: Receipt[] }[] = [];
    let taken = 0;
    while (taken < this.o.batchSize && this.readyHead < this.ready.length) {
      const group = this.ready[this.readyHead++] as string;
      this.readySet.delete(group);
      const messages = (this.groups.get(group) as Receipt[]).splice(0, this.o.batchSize - taken);
      this.inFlight.add(group);
      batch.push({ group, messages });
      taken += messages.length;
    }
    if (this.readyHead > 4096) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
    let running = batch.length;
    const deadline = started + this.o.invocationMs;
    // The crash tail's bound: one ChangeMessageVisibilityBatch for the batch as it starts.
    this.usage.sqsVisibilityChanges += Math.ceil(taken / 10);
    for (const { group, messages } of batch) {
      this.runGroup(c, messages, deadline, (returned) => {
        // The messages not done go back to the head of their group, in their order.
        if (returned.length > 0) this.groups.set(group, [...returned, ...(this.groups.get(group) ?? [])]);
        running -= 1;
        if (running === 0) this.endBatch(c, started, batch);
      });
    }
  }

  private endBatch(c: Container, started: number, batch: { group: string }[]): void {
    this.usage.workerMs += Math.ceil(this.agenda.now - started);
    this.usage.sqsDeletes += 1;
    for (const { group } of batch) this.inFlight.delete(group);
    for (const { group } of batch) {
      const head = this.groups.get(group)?.[0];
      const visible = head ? (this.visibleAt.get(head) ?? 0) : 0;
      // A message back from a crash or a deferral stays invisible until its time comes.
      if (visible > this.agenda.now) this.agenda.at(visible, () => this.makeReady(group));
      else this.makeReady(group);
    }
    this.poll(c);
  }

  /** Runs a group's messages one after another; `done` gets those left for a later receive. */
  private runGroup(c: Container, messages: Receipt[], deadline: number, done: (returned: Receipt[]) => void): void {
    const next = (i: number): void => {
      if (i >= messages.length) {
        done([]);
        return;
      }
      const r = messages[i] as Receipt;
      if ((this.visibleAt.get(r) ?? 0) > this.agenda.now) {
        done(messages.slice(i));
        return;
      }
      this.runAttempt(c, r, deadline, (outcome) => {
        if (outcome === 'done' || outcome === 'dead' || outcome === 'set_aside') {
          next(i + 1);
          return;
        }
        // Failed (a crash) or deferred: it and the rest of its group wait for a later receive.
        done(messages.slice(i));
      });
    };
    next(0);
  }

  /** Back to the queue until `at`, as the worker sets a waiting message aside: not a failed receive. */
  private defer(r: Receipt, at: number, then: (o: Outcome) => void): void {
    r.receives -= 1;
    this.usage.sqsVisibilityChanges += 1;
    this.visibleAt.set(r, at);
    then('deferred');
  }

  /**
   * A call the budget refused, as the worker does it: a copy of the message in a group of its own, due
   * when the product's own functions say (the minute a slot is expected in, at a point spread across
   * it: shared/retry budgetDeferralSeconds); no receive spent, and its group goes on without it. The
   * copy costs a send, and its first receive before its time a visibility change.
   */
  private setAside(r: Receipt, retryAfterMs: number, then: (o: Outcome) => void): void {
    r.receives = 0;
    r.setAside = true;
    this.usage.sqsSends += 1;
    this.usage.sqsVisibilityChanges += 1;
    this.usage.budgetDeferrals += 1;
    const at = this.agenda.now + budgetDeferralSeconds(Math.ceil(retryAfterMs / 1000), () => this.deferRandom.next()) * 1000;
    const group = `aside-${++this.asideGroups}`;
    this.groups.set(group, [r]);
    this.visibleAt.set(r, at);
    this.agenda.at(at, () => this.makeReady(group));
    then('set_aside');
  }

  private runAttempt(c: Container, r: Receipt, deadline: number, then: (o: Outcome) => void): void {
    const u = this.usage;
    const rnd = this.faultRandom;
    r.receives += 1;
    u.workerAttempts += 1;
    if (r.receives > this.o.maxReceiveCount) {
      r.deadLettered = true;
      then('dead');
      return;
    }
    const calls = callsOf(r);
    // A retry reads its record first (the member id and the steps done are on it); every attempt takes the lease.
    if (r.receives > 1) u.ledgerReads += 1;
    u.ledgerWrites += 1;
    const faulty = rnd.chance(this.o.faultRate) ? rnd.int(r.step, calls.length - 1) : -1;
    const crashAt = rnd.chance(this.o.crashRate) ? rnd.int(r.step, calls.length) : -1;
    let faultArmed = true;
    const stepAt = (): void => {
      if (r.step === crashAt) {
        // Back when the worker's own visibility change at the batch's start says (its time left plus a lease).
        this.visibleAt.set(r, Math.min(this.agenda.now + this.o.visibilityMs, deadline + this.o.leaseMs));
        then('failed');
        return;
      }
      if (r.step >= calls.length) {
        this.finish(r, then);
        return;
      }
      const endpoint = calls[r.step] as Endpoint;
      // No call starts that cannot end inside the invocation (its margin kept): deferred a second.
      const remaining = deadline - this.agenda.now - 2_000;
      if (remaining < this.o.clientTimeoutMs) {
        this.defer(r, this.agenda.now + 1_000, then);
        return;
      }
      const failIt = r.step === faulty && faultArmed;
      const maxWaitMs = remaining - this.o.clientTimeoutMs;
      this.call(c, endpoint, failIt, maxWaitMs, (result) => {
        // The minute is spent and the next is out of the invocation's reach (refused at once, now).
        if (result === 'refused') {
          this.setAside(r, slotExpectedInMs(this.agenda.now, maxWaitMs), then);
          return;
        }
        if (result === 'ok') {
          if (isWrite(endpoint)) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
          r.step += 1;
          stepAt();
          return;
        }
        faultArmed = false;
        if (!isWrite(endpoint)) {
          this.agenda.after(READ_RETRY_MS, stepAt);
          return;
        }
        // Outcome unknown: the history search (one listPoints) finds the marker if it ran, else it is sent again.
        const ran = rnd.chance(0.5);
        if (ran) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
        this.call(c, 'listPoints', false, Number.POSITIVE_INFINITY, () => {
          if (ran) r.step += 1;
          stepAt();
        });
      });
    };
    this.agenda.after(LEDGER_WRITE_MS * (r.receives > 1 ? 2 : 1), stepAt);
  }

  private finish(r: Receipt, then: (o: Outcome) => void): void {
    this.usage.ledgerWrites += 1; // the outcome
    this.agenda.after(LEDGER_WRITE_MS + HANDLER_CPU_MS, () => {
      r.doneAt = this.agenda.now;
      then('done');
    });
  }

  /** The App Proxy: a container per concurrent shopper, on the storefront's share; a failed call is tried again. */
  private redeem(r: Receipt): void {
    const u = this.usage;
    u.apiGatewayRequests += 1;
    u.appProxyInvocations += 1;
    const c = this.appProxyIdle.pop() ?? { budget: new ContainerBudget(this.counters, 'storefront'), tokenUntil: 0 };
    const started = this.agenda.now;
    const calls = callsOf(r);
    const stepAt = (): void => {
      if (r.step >= calls.length) {
        u.ledgerWrites += 2;
        r.doneAt = this.agenda.now + 2 * LEDGER_WRITE_MS;
        u.appProxyMs += Math.ceil(r.doneAt - started + HANDLER_CPU_MS);
        this.appProxyIdle.push(c);
        return;
      }
      const endpoint = calls[r.step] as Endpoint;
      this.call(c, endpoint, false, Number.POSITIVE_INFINITY, (result) => {
        if (result === 'ok') {
          if (isWrite(endpoint)) r.landed[r.step] = (r.landed[r.step] ?? 0) + 1;
          r.step += 1;
        }
        stepAt();
      });
    };
    stepAt();
  }

  private drawKind(): KindName {
    const kinds = Object.entries(this.o.mix) as [KindName, number][];
    let u = this.arrivalsRandom.next();
    for (const [name, share] of kinds) {
      u -= share;
      if (u < 0) return name;
    }
    return (kinds.at(-1) as [KindName, number])[0];
  }

  /**
   * Poisson arrivals at R a second until `end`, each in the FIFO group the product gives its event
   * (shared/queue messageGroupId): a till sale (a Smaregi transaction, named by its id only) its own,
   * a web order or refund its customer's.
   */
  arrive(end: number): void {
    const rnd = this.arrivalsRandom;
    const kind = this.drawKind();
    const atTill = kind === 'smaregi' || kind === 'smaregi_spend';
    const group = atTill
      ? messageGroupId('smaregi', null, `${rnd.int(1, this.o.tills)}-${this.all.length}`)
      : messageGroupId('shopify', { externalKey: 'shopify', externalId: `${rnd.int(1, this.o.webCustomers)}` }, `${this.all.length}`);
    const r: Receipt = { kind, group, arrivedAt: this.agenda.now, step: 0, landed: [], receives: 0 };
    this.all.push(r);
    if (RECEIPT_KINDS[kind].queued) this.intake(r);
    else this.redeem(r);
    const gap = -Math.log(1 - rnd.next()) * (1000 / this.o.ratePerSecond);
    if (this.agenda.now + gap < end) this.agenda.after(gap, () => this.arrive(end));
  }

  private intake(r: Receipt): void {
    const u = this.usage;
    u.apiGatewayRequests += 1;
    u.receiverInvocations += 1;
    u.receiverMs += RECEIVER_MS;
    u.sqsSends += 1;
    let queued = this.groups.get(r.group);
    if (!queued) {
      queued = [];
      this.groups.set(r.group, queued);
    }
    queued.push(r);
    this.makeReady(r.group);
  }
}

export function simulateYearEnd(o: YearEndOptions): YearEndResult {
  const model = new YearEndModel(o);
  const arrivalsEnd = o.minutes * MINUTE_MS;
  model.agenda.at(0, () => model.arrive(arrivalsEnd));
  model.agenda.runUntil(arrivalsEnd);
  const backlogAtEnd = model.all.filter((r) => r.doneAt === undefined && !r.deadLettered).length;
  model.agenda.runUntil(arrivalsEnd + o.drainLimitMs);
  for (const c of model.containers) {
    if (c.idleSince !== undefined) model.usage.sqsEmptyReceives += Math.floor((model.agenda.now - c.idleSince) / LONG_POLL_MS);
  }
  return summarise(model, arrivalsEnd, backlogAtEnd);
}

function summarise(model: YearEndModel, arrivalsEnd: number, backlogAtEnd: number): YearEndResult {
  const all = model.all;
  const finished = all.filter((r) => r.doneAt !== undefined);
  // The sustained rate: what finished during the second half of the arrivals (the first is the ramp-up).
  const peakFrom = arrivalsEnd / 2;
  const inPeak = finished.filter((r) => (r.doneAt as number) >= peakFrom && (r.doneAt as number) < arrivalsEnd).length;
  const lastDone = finished.reduce((m, r) => Math.max(m, r.doneAt as number), 0);
  const maxCallsPerMinute = new Map<string, number>();
  for (const [endpoint, byMinute] of model.callsByMinute) maxCallsPerMinute.set(endpoint, Math.max(...byMinute.values()));
  const meanCallsPerMinuteInPeak = new Map<string, number>();
  const [fromMinute, toMinute] = [Math.floor(peakFrom / MINUTE_MS), Math.ceil(arrivalsEnd / MINUTE_MS)];
  for (const [endpoint, byMinute] of model.callsByMinute) {
    let sum = 0;
    for (let m = fromMinute; m < toMinute; m++) sum += byMinute.get(m) ?? 0;
    meanCallsPerMinuteInPeak.set(endpoint, sum / Math.max(1, toMinute - fromMinute));
  }
  // Arrival order is each group's send order: a later receipt of a group done before an earlier one breaks FIFO.
  const lastDoneOfGroup = new Map<string, number>();
  let outOfOrder = 0;
  for (const r of all) {
    // A receipt set aside left its group's order, as the worker's copies do (a waiting event does not hold its customer).
    if (!RECEIPT_KINDS[r.kind].queued || r.doneAt === undefined || r.setAside) continue;
    if (r.doneAt < (lastDoneOfGroup.get(r.group) ?? 0)) outOfOrder += 1;
    lastDoneOfGroup.set(r.group, Math.max(r.doneAt, lastDoneOfGroup.get(r.group) ?? 0));
  }
  const mismatches = finished.filter((r) => callsOf(r).some((e, i) => isWrite(e) && r.landed[i] !== 1)).length;
  return {
    options: model.o,
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
    meanCallsPerMinuteInPeak,
    outOfOrder,
    usage: { ...model.usage, budgetLeases: model.counters.leaseRequests },
  };
}
