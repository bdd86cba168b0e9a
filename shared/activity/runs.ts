import type { RunSummary } from './entries.js';
import type { ActivityRecorder } from './recorder.js';

/** What a finished run found, for its summary: the CLI's summary line, the count and the first findings. */
export interface RunFound {
  summary: string;
  findings: number;
  details: string[];
}

const MAX_DETAILS = 5;
const DETAIL_CHARS = 300;

/**
 * Runs an audit or a reconcile and files its summary in the activity record (best effort), a failed run
 * with its error too; the run's own result and error reach the caller unchanged.
 */
export async function recordedRun<T>(
  recorder: ActivityRecorder | undefined,
  run: RunSummary['run'],
  clock: () => number,
  work: () => Promise<T>,
  found: (result: T) => RunFound,
): Promise<T> {
  const startedAt = new Date(clock()).toISOString();
  const file = (ok: boolean, f: RunFound) =>
    recorder?.run({
      run,
      startedAt,
      finishedAt: new Date(clock()).toISOString(),
      ok,
      summary: f.summary.slice(0, DETAIL_CHARS),
      findings: f.findings,
      details: f.details.slice(0, MAX_DETAILS).map((d) => d.slice(0, DETAIL_CHARS)),
    });
  let result: T;
  try {
    result = await work();
  } catch (e) {
    await file(false, { summary: `failed: ${e instanceof Error ? e.message : String(e)}`, findings: 0, details: [] });
    throw e;
  }
  await file(true, found(result));
  return result;
}
