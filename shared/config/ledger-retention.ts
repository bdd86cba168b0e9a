/**
 * How long finished ledger records are kept (LEDGER_TTL_DAYS): the one setting behind both the
 * table's TTL and the replay window (shared/intake/replay.ts, shared/points/replay.ts). An event
 * older than the retention may have been forgotten, so it must earn and take nothing.
 */
export const DEFAULT_LEDGER_TTL_DAYS = 400;
export const MIN_LEDGER_TTL_DAYS = 1;
export const MAX_LEDGER_TTL_DAYS = 3650;

/** Kept back from the retention at intake: time an accepted event may still spend in the queue and DLQ (14 days) before processing, with room to spare. */
export const REPLAY_MARGIN_DAYS = 30;
