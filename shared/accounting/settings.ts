import { RedemptionSettings, type SourceSettingsSet } from '../sources/index.js';
import { ReportRequestError } from './errors.js';

/** The store column of sources whose sales have no store of their own: the web shop. */
export const WEB_STORE = 'web';
/** The store column where the ledger keeps no store (POS and Square today; Smaregi records kept without one). */
export const NO_STORE = '-';

export interface ReportSettings {
  valuePerPoint: string;
  /** Where it comes from, for the operator: which source's redemption setting, or the default. */
  valueFrom: string;
  storeOf: (source: string, store: string | undefined) => string;
}

/**
 * What the report reads from the stage's sources: the yen value of a point (the redemption setting of
 * the sources that redeem; they must agree; none: the setting's default, 1) and each source's kind (a
 * Shopify source's store is `web`).
 */
export function reportSettings(sources: SourceSettingsSet): ReportSettings {
  const redeeming = [...sources.values()]
    .map((s) => ({ name: s.name, redemption: s.customerLinking?.().redemption }))
    .filter((s) => s.redemption?.enabled === true);
  const values = new Set(redeeming.map((s) => s.redemption?.valuePerPoint));
  if (values.size > 1) {
    const each = redeeming.map((s) => `${s.name} ${s.redemption?.valuePerPoint}`).join(', ');
    throw new ReportRequestError(
      'conflicting_value_per_point',
      `the redeeming sources value a point differently (${each}): one value is needed`,
    );
  }
  const first = redeeming[0];
  const valuePerPoint = first?.redemption?.valuePerPoint ?? RedemptionSettings.parse({}).valuePerPoint;
  const valueFrom = first ? `${first.name}.redemption.valuePerPoint` : 'the default (no source redeems)';
  const shopify = new Set([...sources.values()].filter((s) => s.kind === 'shopify').map((s) => s.name));
  return {
    valuePerPoint,
    valueFrom,
    storeOf: (source, store) => store ?? (shopify.has(source) ? WEB_STORE : NO_STORE),
  };
}
