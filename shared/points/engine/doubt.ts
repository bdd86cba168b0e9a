import type { OperationFields } from '../../ledger/index.js';
/**
 * In doubt: a points call whose ending proved nothing may still be applied by the service, late (a
 * request queued behind a proxy, a backend that carries on after its balancer hung up). Nobody sends an
 * operation again until the in-doubt horizon has passed since its last possible send, and then only
 * after a complete search of the history found nothing. The lease says who may work on a record; the
 * horizon says when a call of an earlier holder can no longer land: two different things.
 */
export interface Doubt {
  /** Epoch ms: before it, a search that finds nothing proves nothing. */
  until: number;
  /** Epoch ms: the earliest the operations in doubt may have been sent (where a complete search must reach). */
  since: number;
  /** The member the request in doubt went to, when known: that member's history is searched. */
  memberId?: string | undefined;
}

export interface HorizonSettings {
  inDoubtMs: number;
  /** The lease's margin: a lease holder sends nothing after its lease's end less this (send-window.ts). */
  marginMs: number;
  leaseMs: number;
}

/** What a record keeps of an attempt's doubt: the ledger's operation fields (orders, reversals, bonuses). */
export type DoubtFields = OperationFields;

/**
 * The doubt a claim inherits from the record as it found it. An attempt that learnt its call's outcome
 * was unknown wrote when (`inDoubtUntil`) and to whom; one that died left its lease in place, and may
 * have sent until its lease's end less the margin, to the member its order names (`foundMember`), if any.
 */
export function doubtOf(
  previous: (DoubtFields & { foundMember?: { id: string } | undefined }) | undefined,
  h: HorizonSettings,
): Doubt | undefined {
  if (!previous) return undefined;
  const crashed = previous.leaseOwner !== undefined && previous.leaseUntil !== undefined;
  if (!crashed && previous.needsReconcile !== true) return undefined;
  const crashedUntil = crashed ? (previous.leaseUntil as number) - h.marginMs + h.inDoubtMs : 0;
  const crashedSince = crashed ? (previous.leaseUntil as number) - h.leaseMs : Number.POSITIVE_INFINITY;
  const until = Math.max(previous.inDoubtUntil ?? 0, crashedUntil);
  const since = Math.min(previous.inDoubtSince ?? Number.POSITIVE_INFINITY, crashedSince, until - h.inDoubtMs);
  // A purchase writes its member before its call (member-first.ts): a dead attempt's call went to it.
  const memberId = previous.inDoubtMemberId ?? (crashed ? previous.foundMember?.id : undefined);
  return { until, since, ...(memberId ? { memberId } : {}) };
}

/** The doubt after a call sent at `sentAt` (to `memberId`) ended unknown, added to what was in doubt before. */
export function doubtAfterSend(sentAt: number, memberId: string, now: number, before: Doubt | undefined, h: HorizonSettings): Doubt {
  return {
    until: Math.max(now + h.inDoubtMs, before?.until ?? 0),
    since: Math.min(sentAt, before?.since ?? sentAt),
    memberId,
  };
}

/** The record's fields for a doubt (written when an attempt lets go of a call it is unsure of). */
export const doubtFields = (
  d: Doubt,
): Required<Pick<DoubtFields, 'inDoubtUntil' | 'inDoubtSince'>> & Pick<DoubtFields, 'inDoubtMemberId'> => ({
  inDoubtUntil: d.until,
  inDoubtSince: d.since,
  ...(d.memberId ? { inDoubtMemberId: d.memberId } : {}),
});

/**
 * Until when a credit recorded at `recordedAt` (ISO) may still be missing from the point history: a
 * history behind the service (a read replica) shows an entry within the in-doubt horizon of its
 * recording. Before then whoever needs the entry (a refund's base, a campaign's bonus) waits
 * (`credit_not_visible`); after, the entry is not coming and the balance difference stands in.
 * Undefined: due now, or the recording's time is not known.
 */
export function creditNotVisibleUntil(
  recordedAt: string | undefined,
  h: Pick<HorizonSettings, 'inDoubtMs'>,
  now: number,
): number | undefined {
  const visibleBy = (recordedAt === undefined ? Number.NaN : Date.parse(recordedAt)) + h.inDoubtMs;
  return now < visibleBy ? visibleBy : undefined;
}
