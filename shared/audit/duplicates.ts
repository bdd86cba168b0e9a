import type { PointItem } from '../openapi/index.js';
import { type ParsedMarker, parseMarker, reversalMarker } from '../points/index.js';
import { listed, type Report, report, signed, view } from './checks.js';
import type { Finding, FindingKind, Note } from './findings.js';
import { type ReversalDeps, type ReversalResult, reverseExtra } from './reversal.js';

/** What healing one customer's duplicates found: duplicates not yet reversed before this run, and those reversed now. */
export interface Healed extends Report {
  duplicates: number;
  reversed: number;
  /** The entry that stands of each marker found more than once. */
  standing: Map<string, PointItem>;
  /** Every extra entry of those markers (reversed now, before, or not yet), with its marker's source. */
  extras: { source: string; entry: PointItem }[];
}

/**
 * The entry that stands (the first the service applied: oldest, then lowest id) and the extras after it.
 * The same order on every run, so a second run picks the same extras.
 */
function ordered(entries: PointItem[]): PointItem[] {
  const byId = (a: string, b: string) => (/^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a.localeCompare(b));
  return [...entries].sort((a, b) => a.created_at.localeCompare(b.created_at) || byId(a.id, b.id));
}

const DUPLICATE_KIND: Record<ParsedMarker['kind'], FindingKind> = {
  order: 'duplicate_credit',
  refund: 'duplicate_debit',
  redemption: 'duplicate_entry',
  redemption_return: 'duplicate_entry',
  redemption_clawback: 'duplicate_entry',
  reversal: 'duplicate_entry',
  bonus: 'duplicate_credit',
  bonus_return: 'duplicate_debit',
};

const WHAT: Record<ParsedMarker['kind'], string> = {
  order: "the order's",
  refund: "the refund's",
  redemption: "the redemption's",
  redemption_return: "the redemption's give-back",
  redemption_clawback: "the redemption's claw-back",
  reversal: "the audit's reversal",
  bonus: "the campaign bonus's",
  bonus_return: "the campaign bonus claw-back's",
};

/** The ids a finding names: the order (and refund) for their markers, `-` for the others. */
function idsOf(parsed: ParsedMarker): { source: string; orderId: string; refundId?: string } {
  if (parsed.kind === 'order') return { source: parsed.source, orderId: parsed.orderId };
  if (parsed.kind === 'refund' || parsed.kind === 'bonus_return') {
    return { source: parsed.source, orderId: parsed.orderId, refundId: parsed.refundId };
  }
  if (parsed.kind === 'bonus') return { source: parsed.source, orderId: parsed.orderId };
  return { source: parsed.source, orderId: '-' };
}

function described(entry: PointItem, r: ReversalResult): string {
  const which = `extra entry ${entry.id} (${signed(entry.point)})`;
  switch (r.kind) {
    case 'reversed':
      return r.shortfall > 0
        ? `${which} reversed in part (${r.marker}): ${r.pointsReversed} taken, ${r.shortfall} short (too few points held)`
        : `${which} reversed (${r.marker})`;
    case 'done_before':
      return `${which} reversed by another run (${r.marker})`;
    case 'busy':
      return `${which} is being reversed by another run (${r.marker})`;
    case 'in_doubt':
      return `${which}: its reversal may still land, settled by an audit after ${new Date(r.until).toISOString()} (${r.reason})`;
    case 'failed':
      return `${which} not reversed: ${r.reason}`;
  }
}

/**
 * The entry that stands: never one a reversal was started for (so every run picks the same), the one
 * nearest the size the ledger wants (a refund: its target, else what it booked; an order: its credit),
 * the earliest of equals; with no size known, the first the service applied. Nearest, not equal: a
 * refund's target moves by a point when a sibling's book changed between its attempts, and a clamped
 * debit of 1 booked beside a full one must not stand (issue 50); the refund's record is then corrected to
 * the entry that stands (audit.ts).
 */
function standingEntry(
  inOrder: PointItem[],
  records: ReadonlyMap<string, { state: string } | undefined>,
  wanted: number | undefined,
): PointItem {
  const open = inOrder.filter((e) => records.get(e.id) === undefined);
  if (wanted === undefined || open.length === 0) return open[0] ?? (inOrder[0] as PointItem);
  return open.reduce((best, e) => (Math.abs(e.point - wanted) < Math.abs(best.point - wanted) ? e : best));
}

/**
 * Every marker of ours found more than once in the customer's history (`entries`, by marker) has each
 * extra entry reversed exactly once (reversal.ts). Each marker that had an extra not reversed before this
 * run is a finding (drift, whatever this run did about it: someone should look); one reversed by an
 * earlier run is healed, and one reversed short is noted on every run. Afterwards `entries` keeps only
 * the standing entry of each duplicated marker, so the ledger's checks see what counts.
 */
export async function healDuplicates(
  customerId: string,
  entries: Map<string, PointItem[]>,
  deps: ReversalDeps,
  wanted: ReadonlyMap<string, number> = new Map(),
): Promise<Healed> {
  const findings: Finding[] = [];
  const notes: Note[] = [];
  let duplicates = 0;
  let reversed = 0;
  const standingOf = new Map<string, PointItem>();
  const allExtras: Healed['extras'] = [];
  for (const [marker, found] of entries) {
    if (found.length < 2) continue;
    const parsed = parseMarker(marker);
    if (parsed === undefined) continue; // not ours: reported as a foreign marker, never reversed
    const records = new Map<string, Awaited<ReturnType<ReversalDeps['reversals']['get']>>>();
    for (const entry of found) records.set(entry.id, await deps.reversals.get(parsed.source, customerId, entry.id));
    const standing = standingEntry(ordered(found), records, wanted.get(marker));
    const extras = ordered(found).filter((e) => e !== standing);
    for (const entry of extras) allExtras.push({ source: parsed.source, entry });
    entries.set(marker, [standing]);
    standingOf.set(marker, standing);
    const ids = idsOf(parsed);
    const outcomes: string[] = [];
    for (const entry of extras) {
      const record = records.get(entry.id);
      if (record?.state === 'done') {
        if ((record.shortfall ?? 0) > 0) {
          const detail = `extra entry ${entry.id} (${signed(entry.point)}) of ${marker} was reversed in part: ${record.shortfall} points short (${record.marker})`;
          notes.push({ kind: 'reversal_short', ...ids, customerId, detail });
        }
        continue;
      }
      duplicates++;
      const result = await reverseExtra(
        deps,
        {
          source: parsed.source,
          memberId: customerId,
          duplicatedMarker: marker,
          entry,
          ...(ids.orderId !== '-' ? { orderId: ids.orderId } : {}),
          ...(ids.refundId !== undefined ? { refundId: ids.refundId } : {}),
        },
        reversalMarker(parsed.source, entry.id),
      );
      if (result.kind === 'reversed') reversed++;
      outcomes.push(described(entry, result));
    }
    if (outcomes.length === 0) continue;
    findings.push({
      kind: DUPLICATE_KIND[parsed.kind],
      ...ids,
      customerId,
      marker,
      entries: found.map(view),
      detail: `${found.length} history entries carry ${WHAT[parsed.kind]} marker (${listed(found)}); ${outcomes.join('; ')}`,
    });
  }
  return { ...report(findings, notes), duplicates, reversed, standing: standingOf, extras: allExtras };
}
