/**
 * How long a state-changing request may still be in flight, from now: the end of the lease its
 * caller holds, less the lease's margin. The pipeline sends no request that could outlast it (its
 * deadline is cut to it, and too little left refuses the send before anything goes), so whoever
 * takes the lease over after it runs out finds any call of the holder already landed or dead, however
 * late in an invocation the holder sent it (token renewals, 429 holds). Reads need none.
 */
export interface SendWindow {
  /** Milliseconds left; zero or less when the window has closed. */
  leftMs(): number;
}

/** No time at all: the window of an attempt that holds no lease (it sends nothing). */
export const CLOSED_SEND_WINDOW: SendWindow = { leftMs: () => 0 };

/** The smaller of two time budgets, either of which may be absent. */
export function tighterOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
