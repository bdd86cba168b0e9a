/**
 * The bench's parts as outcomes: each runs on its own, a failure is kept with its message (the other
 * parts still run), and the run names every failed part and fails with them (`failures` in the JSON).
 */

export type Outcome<T> = { ok: true; value: T; seconds: number } | { ok: false; error: string; seconds: number };

/** Runs one part; a part that throws is reported as failed, never as figures. */
export async function part<T>(name: string, run: () => Promise<T>, progress: (line: string) => void): Promise<Outcome<T>> {
  progress(`bench: ${name}...`);
  const started = Date.now();
  try {
    const value = await run();
    const seconds = (Date.now() - started) / 1000;
    progress(`bench: ${name} done in ${seconds.toFixed(1)} s`);
    return { ok: true, value, seconds };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress(`bench: ${name} failed: ${message}`);
    return { ok: false, error: message.slice(0, 200), seconds: (Date.now() - started) / 1000 };
  }
}

/** The names of the parts that failed (`keys` renames a part to its key in the JSON). */
export function failuresOf(parts: Record<string, Outcome<unknown>>, keys: Record<string, string> = {}): string[] {
  return Object.entries(parts).flatMap(([name, outcome]) => (outcome.ok ? [] : [keys[name] ?? name]));
}

/** The process's exit code for a run: 1 when any part failed. */
export const exitCodeFor = (failures: readonly string[]): number => (failures.length > 0 ? 1 : 0);
