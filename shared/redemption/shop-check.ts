import { shopCurrency } from '../sources/shopify/index.js';
import type { RedemptionDeps } from './protocol.js';

/**
 * What a redeeming function checks of the shop before it makes codes: a code's amount is always in the
 * shop's currency (`shop { currencyCode }`), so a setting that says another one would make a ¥500 code
 * for what was reckoned as $500: refused, with what to set, never silently the setting's.
 */
export async function shopCurrencyProblem(deps: Pick<RedemptionDeps, 'shopify' | 'settings' | 'source'>): Promise<string | undefined> {
  const currency = await shopCurrency(deps.shopify);
  if (currency === deps.settings.currency) return undefined;
  return (
    `the shop's currency is ${currency} but sources.${deps.source}.redemption.currency is ${deps.settings.currency}: ` +
    `a code's amount is in the shop's currency; set redemption.currency to ${currency}`
  );
}

/** The check once per container: a problem found (or a failed look) is asked again next time; a match is kept. */
export function onceMatched(check: () => Promise<string | undefined>): () => Promise<string | undefined> {
  let matched = false;
  return async () => {
    if (matched) return undefined;
    const problem = await check();
    matched = problem === undefined;
    return problem;
  };
}
