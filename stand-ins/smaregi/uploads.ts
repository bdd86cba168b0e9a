import type { JsonAnswer } from '../http/index.js';

/**
 * An offline till's late upload (a setting of the stand-in's test surface, not Smaregi's API). A real till
 * that lost its connection keeps its sales and sends them when it is back: until then Smaregi's server
 * knows nothing of them, so neither its transaction reads and list nor the customer's point show them.
 * With a delay set (`POST /__smaregi/upload-delay` `{"ms": N}`), a sale posted to the stand-in is the
 * till's, made then, and reaches the server N ms (the stand-in's clock) later, all at once: listed,
 * readable, its spend off the customer's point. Its times are the ones posted (the test says what the
 * till and the server stamped). Default 0: at once, as before.
 */
export interface Uploads {
  delayMs: number;
  /** Sales made at the till, not uploaded yet, in the order they were made. */
  held: { dueAt: number; tx: Record<string, unknown> }[];
}

/** The longest delay the setting takes (an hour: a till offline longer is a day's reconcile, not a test). */
const MAX_DELAY_MS = 3_600_000;

export const noUploadDelay = (): Uploads => ({ delayMs: 0, held: [] });

/** Holds the sale when a delay is set (true); false: it is the server's now. */
export function holdForUpload(uploads: Uploads, tx: Record<string, unknown>, now: number): boolean {
  if (uploads.delayMs <= 0) return false;
  uploads.held.push({ dueAt: now + uploads.delayMs, tx });
  return true;
}

/**
 * Uploads the sales due by `now`, in the order made, through `store` (which applies the spend and keeps
 * the sale). One the server refuses (its spend beyond the customer's point) stays held: never shown.
 */
export function uploadDue(uploads: Uploads, now: number, store: (tx: Record<string, unknown>) => boolean): void {
  const due = uploads.held.filter((h) => h.dueAt <= now);
  if (due.length === 0) return;
  uploads.held = uploads.held.filter((h) => h.dueAt > now || !store(h.tx));
}

/** `POST /__smaregi/upload-delay`: `{"ms": N}`, 0 to 3,600,000; sales already held keep their time. */
export function setUploadDelay(uploads: Uploads, json: unknown): JsonAnswer {
  const ms = (json as { ms?: unknown } | null)?.ms;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS) {
    return { status: 422, body: { error: `expected {"ms": an integer from 0 to ${MAX_DELAY_MS}}` } };
  }
  uploads.delayMs = ms;
  return { status: 201, body: { ms } };
}
