/**
 * The final audit's reversals in a history (issue 50 item 6): each extra entry of a marker found more
 * than once is reversed by an entry of its own, marked `lp1:<source>:reversal:<entry id>`. The final
 * check compares the model with the history AFTER the reversals: a doubled entry and its reversal cancel
 * out, and what stands must be exactly what the model expects, so a doubled point left unreversed still
 * fails the run. Read independently of the product's marker code (as compare.ts reads order ids).
 */

interface Entry {
  id: string;
  point: number;
  remarks: string | null;
}

const REVERSAL = /^lp1:[^:]+:reversal:([^:]+)$/;
const OURS = /^lp1:/;

export interface Netted<E extends Entry> {
  /** The entries that stand: the history less each reversed entry and its reversal. */
  standing: E[];
  /** Extra entries of doubled markers in the history (reversed or not): what the run saw doubled. */
  doubled: number;
  /** Reversals that cancel a doubled marker's extra entry, point for point. */
  reversed: number;
  /** Reversals that do not: of an entry not there, not doubled, by another amount, or twice. */
  problems: string[];
}

export function netReversals<E extends Entry>(history: readonly E[]): Netted<E> {
  const byId = new Map(history.map((e) => [e.id, e]));
  const count = new Map<string, number>();
  for (const e of history)
    if (e.remarks && OURS.test(e.remarks) && !REVERSAL.test(e.remarks)) count.set(e.remarks, (count.get(e.remarks) ?? 0) + 1);
  // A zero entry moves no point: doubled, it loses nothing (compare.ts skips it), so it is not counted.
  const moving = new Set(history.filter((e) => e.point !== 0).map((e) => e.remarks));
  const doubled = [...count.entries()].reduce((n, [marker, c]) => n + (moving.has(marker) ? Math.max(0, c - 1) : 0), 0);
  const cancelled = new Set<string>();
  const problems: string[] = [];
  let reversed = 0;
  for (const e of history) {
    const m = REVERSAL.exec(e.remarks ?? '');
    if (!m) continue;
    const targetId = decodeURIComponent(m[1] as string);
    // A clamp's shortfall the audit settled (`shortfall:<order>:<refund>`) cancels no entry: it stands, a
    // debit of the clamped refund's order (compare.ts), taking what the double had kept the clamp from.
    if (targetId.startsWith('shortfall:')) continue;
    const target = byId.get(targetId);
    if (!target) problems.push(`reversal ${e.id} (${e.point}) of entry ${targetId}, which is not in the history`);
    else if ((count.get(target.remarks ?? '') ?? 0) < 2)
      problems.push(`reversal ${e.id} (${e.point}) of entry ${targetId}, which was not doubled`);
    else if (e.point !== -target.point)
      problems.push(`reversal ${e.id} (${e.point}) of entry ${targetId} (${target.point}): not its opposite`);
    else if (cancelled.has(targetId)) problems.push(`reversal ${e.id} of entry ${targetId}, reversed before`);
    else {
      cancelled.add(targetId);
      cancelled.add(e.id);
      reversed += 1;
    }
    // A reversal that cancels nothing stands: the model has no place for it, so the check fails on it too.
  }
  return { standing: history.filter((e) => !cancelled.has(e.id)), doubled, reversed, problems };
}
