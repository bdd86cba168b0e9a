import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { parseDecimal } from '../money/index.js';
import { lazySchema } from '../schema/index.js';

/**
 * A campaign rule (issue 53): a bonus on the purchases that happened (`occurredAt`) within its window,
 * of its sources, stores and ranks, at or above its amount. The same JSON in the stage (`campaigns`) and
 * under `npm start` (`CAMPAIGNS_CONFIG`).
 */

/** An exact decimal given as a string ("1.5", "3000"): compared and multiplied with BigInt only. */
const Exact = lazySchema(() => z.string().regex(/^\d{1,18}(?:\.\d{1,12})?$/, 'expected a plain decimal string such as "1.5"'));

/** ISO 8601 with its offset ("2026-12-01T00:00:00+09:00"): a window without a zone would be read in the server's. */
const Instant = lazySchema(() =>
  z.iso.datetime({ offset: true, error: 'expected an ISO date-time with its offset, such as 2026-12-01T00:00:00+09:00' }),
);

const list = lazySchema(() => z.array(z.string().min(1).max(64)).min(1));

export const Campaign = lazySchema(() =>
  z
    .strictObject({
      /** Part of the bonus's marker (`lp1:<source>:bonus:<order>:<id>`): short and stable; never reuse one. */
      id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and -, at most 40'),
      /** What the member sees in the point history (Japanese allowed). */
      title: z.string().trim().min(1).max(100),
      from: Instant,
      to: Instant,
      /** Source names (default: all). */
      sources: list.optional(),
      /** Smaregi store ids (the order's `store`): only sales made there. */
      storeIds: list.optional(),
      /** Member ranks (the membership service's `rank`). */
      ranks: list.optional(),
      /** In the order's currency, compared exactly with its eligible amount (the basis of its points). */
      minAmount: Exact.optional(),
      /** Bonus = base × (multiplier − 1), floored once at the end. */
      multiplier: Exact.refine((m) => (parseDecimal(m)?.units ?? 0n) > 0n && isAboveOne(m), 'must be more than 1').optional(),
      /** N points per qualifying purchase. */
      fixedPoints: z.number().int().positive().max(1_000_000).optional(),
    })
    .superRefine((c, ctx) => {
      if ((c.multiplier === undefined) === (c.fixedPoints === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'give exactly one of multiplier or fixedPoints', path: ['multiplier'] });
      }
      if (Date.parse(c.to) <= Date.parse(c.from)) ctx.addIssue({ code: 'custom', message: 'must be after from', path: ['to'] });
    }),
);
export type Campaign = z.infer<typeof Campaign>;

/** Every rule; ids unique (each is part of a marker). Overlapping windows are allowed: their bonuses add up. */
export const Campaigns = lazySchema(() =>
  z.array(Campaign).superRefine((all, ctx) => {
    const seen = new Set<string>();
    all.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', message: `duplicate id ${c.id}`, path: [i, 'id'] });
      seen.add(c.id);
    });
  }),
);
export type Campaigns = z.infer<typeof Campaigns>;

function isAboveOne(m: string): boolean {
  const d = parseDecimal(m);
  return d !== undefined && d.units > 10n ** BigInt(d.scale);
}

/**
 * The rules from their JSON, or an error naming each bad rule by its id (or position) and field:
 * `campaign 'xmas' (campaigns[1]) to: must be after from`.
 */
export function parseCampaigns(
  input: unknown,
  where = 'campaigns',
): { ok: true; campaigns: Campaigns } | { ok: false; problems: string[] } {
  const parsed = Campaigns.safeParse(input);
  if (parsed.success) return { ok: true, campaigns: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const [index, field] = issue.path;
    if (typeof index !== 'number') return `${where}: ${issue.message}`;
    const raw = Array.isArray(input) ? (input[index] as { id?: unknown } | undefined) : undefined;
    const id = typeof raw?.id === 'string' ? `'${raw.id}' ` : '';
    return `campaign ${id}(${where}[${index}]) ${field === undefined ? '' : `${String(field)}: `}${issue.message}`;
  });
  return { ok: false, problems };
}
