import type { TillMirrorRecord } from '../../ledger/index.js';

/**
 * What a till record's point says of a mirror add in doubt, once the changes we know of around it are
 * counted. A relative add has no idempotency key, so its step is settled by reading the customer's point
 * again (till-mirror.ts); a till spend or another mirror step of the same member that landed meanwhile
 * moved that point too. Each such change we know of (the member's partition of the ledger's index:
 * shared/ledger/till-mirrors.ts `around`) is either certain to lie between the step's `before` read and
 * now, or only may (its timing overlaps the read, or it is itself in doubt). The add landed when
 * `now - before - points` is the certain sum plus some of the maybes; it did not when `now - before` is.
 * Exactly one story: settled; both (the numbers cannot tell) or neither (a change we cannot explain):
 * `conflict`, loud, never written over.
 */

/** A change of the same record around the step's read: its points, and whether it surely came after. */
export interface WindowChange {
  points: number;
  certain: boolean;
}

export type Told = 'landed' | 'not_landed' | 'both' | 'neither';

/** More maybes than this are not combined (2^n sums): the point is then not explained. */
const MAX_MAYBES = 16;

export function explainPoint(input: { before: number; points: number; now: number; changes: readonly WindowChange[] }): Told {
  const certain = input.changes.filter((c) => c.certain).reduce((sum, c) => sum + c.points, 0);
  const maybes = input.changes.filter((c) => !c.certain).map((c) => c.points);
  if (maybes.length > MAX_MAYBES) return 'neither';
  let sums = new Set([certain]);
  for (const m of maybes) sums = new Set([...sums, ...[...sums].map((s) => s + m)]);
  const landed = sums.has(input.now - input.before - input.points);
  const notLanded = sums.has(input.now - input.before);
  return landed && notLanded ? 'both' : landed ? 'landed' : notLanded ? 'not_landed' : 'neither';
}

/**
 * The changes of the step's window, from the member's records read before the point (`first`) and after
 * (`second`). The step's read came after `readAt` and before `sentAt`.
 * - A till note (a spend or give-back the till made, learned at `createdAt`): learned by `readAt`, it was
 *   in `before`; later, it may have come before the read or after (the till's clock is not ours): a maybe.
 * - Another step, done: answered by `readAt`, it was in `before`; sent after this one's `sentAt`, it
 *   landed after the read (certain, if it was done already before the point was read, else a maybe);
 *   otherwise a maybe. Sending or in conflict: it may have landed or not, a maybe, unless it was sent a
 *   horizon (`horizonMs`, the in-doubt promise) before the read began. Any other state sent nothing that
 *   landed (refused, put back to send again, skipped).
 * A step without `readAt`/`sentAt` (written before they were kept) has no window: nothing is counted.
 */
export function windowChanges(
  step: TillMirrorRecord,
  first: readonly TillMirrorRecord[],
  second: readonly TillMirrorRecord[],
  horizonMs: number,
): WindowChange[] {
  if (step.readAt === undefined || step.sentAt === undefined) return [];
  const readAt = Date.parse(step.readAt);
  const sentAt = Date.parse(step.sentAt);
  const doneBefore = new Set(first.filter((o) => o.state === 'done').map((o) => o.pk));
  const out: WindowChange[] = [];
  for (const o of second) {
    if (o.points === 0) continue;
    if (o.state === 'till') {
      if (Date.parse(o.createdAt) > readAt) out.push({ points: o.points, certain: false });
      continue;
    }
    if (o.sentAt === undefined) continue;
    // In doubt itself: it landed within the horizon of its send, or never; sent a horizon before the read, not in between.
    if (o.state === 'sending' || o.state === 'conflict') {
      if (Date.parse(o.sentAt) + horizonMs > readAt) out.push({ points: o.points, certain: false });
      continue;
    }
    // Answered by the moment this read began: it landed before (a landing comes before its answer).
    if (o.state !== 'done' || Date.parse(o.updatedAt ?? o.sentAt) <= readAt) continue;
    out.push({ points: o.points, certain: Date.parse(o.sentAt) > sentAt && doneBefore.has(o.pk) });
  }
  return out;
}
