import { LEDGER_KEY_PREFIX } from '../key-prefixes.js';
/**
 * Where the activity record lives in the ledger table and how big it may grow: no schema here, so what
 * intake loads to write a delivery stays small (the schemas in entries.ts are for reading back).
 */

export const ACTIVITY_KIND = 'activity';
/** Entries kept per order; later ones are counted in `omitted`, not stored (the item stays small). */
export const MAX_ORDER_ENTRIES = 100;
/** Run summaries kept (per table, newest last) and breaker transitions kept. */
export const MAX_RUNS = 30;
export const MAX_TRANSITIONS = 30;

const part = encodeURIComponent;
export const orderActivityKey = (source: string, orderId: string) => `activity#order#${part(source)}#${part(orderId)}`;
export const RUNS_KEY = LEDGER_KEY_PREFIX.activityRuns;
export const BREAKER_KEY = 'activity#breaker';
