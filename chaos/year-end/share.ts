/**
 * The workers' share of the budget: all but the App Proxy's reserved 10 %. A copy of branch s5-budget's
 * shared/config/throughput.ts `bulkShare`; import that one once the branch is on main.
 */

/** The App Proxy's share, which no other caller may take. */
export const STOREFRONT_RESERVED_SHARE = 0.1;

export function bulkShare(perMinute: number): number {
  return perMinute - Math.ceil(perMinute * STOREFRONT_RESERVED_SHARE);
}
