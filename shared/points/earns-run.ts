import type { FollowUp, PointsEvent, ProcessOutcome, PurchaseEvent, RefundEvent } from '../events/index.js';
import { type ChainLedger, readChain } from './chain.js';
import { type EarnsEvent, type Reach, reachEarns } from './earns.js';

/**
 * Runs the events reaching what an order earns (earns.ts) through the usual protocol, in order. The
 * first event's outcome is the answer, the others its `followUps`; an event that must wait stops the
 * rest and is the answer (its kind decides how long the message waits), so a refund never runs ahead of
 * its purchase here, and the next delivery finds the done ones duplicates. A raise runs its supplement
 * first and takes back what it supersedes in the next round, once the supplement is known credited (a
 * supplement that fails must not cost the member the older credit).
 */

/** The protocol for one canonical purchase or refund (the processor's `canonical` runners). */
export interface EarnsRunners {
  purchase(event: PurchaseEvent): Promise<ProcessOutcome>;
  refund(event: RefundEvent): Promise<ProcessOutcome>;
}

/** The rounds' answer; `waiting`: an event must wait, the rest did not run. */
export interface Reached {
  outcome: ProcessOutcome;
  waiting: boolean;
}

/** At most this many rounds: the supplement, then what it supersedes (and one to spare). */
export const MAX_REACH_ROUNDS = 3;

/** Rounds of `round` (the events reaching the order's truth, from the ledger as it is now) until none asks for another. */
export async function runRounds(round: (index: number) => Promise<Reach>, run: EarnsRunners): Promise<Reached> {
  let answer: Ran | undefined;
  for (let index = 0; index < MAX_REACH_ROUNDS; index++) {
    const reach = await round(index);
    const ran = await runEvents(reach.events, run, answer !== undefined);
    if (ran.wait) return { outcome: ran.wait, waiting: true };
    answer = answer ? { ...answer, followUps: [...answer.followUps, ...ran.followUps] } : ran;
    if (!reach.again) break;
  }
  return { outcome: answerOf(answer), waiting: false };
}

/** The order brought to what it earns now: its chain (and its booked refunds' records) read from the ledger each round, reached, run. */
export async function runEarns(earns: EarnsEvent, ledger: ChainLedger, run: EarnsRunners): Promise<ProcessOutcome> {
  const read = () => readChain(ledger.getOrder, earns.source, earns.orderId, ledger.getRefund);
  const reached = await runRounds(async () => reachEarns(earns, await read()), run);
  return reached.outcome;
}

/** The events run once, in order (no second round). */
export async function runInOrder(events: PointsEvent[], run: EarnsRunners): Promise<ProcessOutcome> {
  const ran = await runEvents(events, run, false);
  return ran.wait ?? answerOf(ran);
}

interface Ran {
  first?: ProcessOutcome | undefined;
  followUps: FollowUp[];
  /** An event that must wait: it is the answer, and the rest did not run. */
  wait?: ProcessOutcome | undefined;
}

function answerOf(ran: Ran | undefined): ProcessOutcome {
  const first = ran?.first;
  if (!first) return { kind: 'skipped', action: 'ack', reason: 'amount_zero' };
  return addFollowUps(first, ran.followUps);
}

/** `answer` with `followUps` after its own (the other events run for the same message). */
export function addFollowUps(answer: ProcessOutcome, followUps: FollowUp[]): ProcessOutcome {
  if (!followUps.length) return answer;
  return { ...answer, followUps: [...('followUps' in answer && answer.followUps ? answer.followUps : []), ...followUps] } as ProcessOutcome;
}

/** What the answer says of another event run for the same message. */
export function followUpOf(event: PointsEvent, outcome: ProcessOutcome): FollowUp {
  return {
    refundId: event.type === 'refund' ? event.refundId : event.orderId,
    kind: outcome.kind,
    action: outcome.action,
    ...('points' in outcome && typeof outcome.points === 'number' && outcome.points >= 0 ? { points: outcome.points } : {}),
  };
}

/** Runs the events in order; a later round leaves out its first event (the sale's purchase again). */
async function runEvents(events: PointsEvent[], run: EarnsRunners, laterRound: boolean): Promise<Ran> {
  let first: ProcessOutcome | undefined;
  const followUps: FollowUp[] = [];
  for (const [i, event] of events.entries()) {
    const outcome = event.type === 'purchase' ? await run.purchase(event) : await run.refund(event);
    // The message comes back for what must wait (its kind decides the deferral); what is done stays done.
    if (outcome.action === 'retry') return { followUps, wait: outcome };
    if (laterRound && i === 0) continue;
    if (!first && !laterRound) {
      first = outcome;
      continue;
    }
    followUps.push(followUpOf(event, outcome));
  }
  return { first, followUps };
}
