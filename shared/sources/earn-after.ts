import * as z from 'zod';
import type { EarnAfter } from '../events/index.js';
import { lazySchema } from '../schema/index.js';

/**
 * When a source's sales earn their points (issue 53): `paid` (default: at payment), `fulfilled` (once
 * the order ships: Shopify's orders/fulfilled) or `{"days": N}` after payment. Until then the points are
 * provisional (shared/points/provisional.ts). The stage writes the JSON value; `npm start` the same
 * through `SHOPIFY_EARN_AFTER=paid|fulfilled|days:N` (`earnAfterFromText`).
 */
const Shape = lazySchema(() => z.union([z.enum(['paid', 'fulfilled']), z.strictObject({ days: z.number().int().min(1).max(365) })]));
export type EarnAfterSetting = z.infer<typeof Shape>;
// One message for every wrong form (a union would report its first branch's complaint).
export const EarnAfterSetting = lazySchema(() =>
  z.custom<EarnAfterSetting>((v) => Shape.safeParse(v).success, {
    error: 'expected "paid", "fulfilled" or {"days": N} with N from 1 to 365',
  }),
);

/** What the purchase event carries: nothing when the points are earned at payment. */
export function earnAfterOf(setting: EarnAfterSetting): EarnAfter | undefined {
  if (setting === 'paid') return undefined;
  if (setting === 'fulfilled') return { kind: 'fulfilled' };
  return { kind: 'days', days: setting.days };
}

/** `paid`, `fulfilled` or `days:N` (an environment variable's text) as the setting, or why not. */
export function earnAfterFromText(text: string): { ok: true; setting: EarnAfterSetting } | { ok: false; message: string } {
  const value = text.trim();
  const days = /^days:(\d{1,3})$/.exec(value);
  const parsed = Shape.safeParse(days ? { days: Number(days[1]) } : value);
  if (parsed.success) return { ok: true, setting: parsed.data };
  return { ok: false, message: `must be paid, fulfilled or days:N (N from 1 to 365), not "${value.slice(0, 40)}"` };
}
