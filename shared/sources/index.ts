export type {
  ConfiguredSource,
  Outcome,
  RequestHeaders,
  SignedRequest,
  SourceError,
  SourceErrorKind,
  VerifyOptions,
  WebhookSource,
} from './types.js';
export { configureSource, defaultSettings, loadSources, SourcesConfigError, type SourceSet } from './registry.js';
export { shopifySource, ShopifySettings } from './shopify.js';
export { posSource, posSignedBytes, PosSettings, PosSale, PosReturn } from './pos.js';
export { AmountBasis, AmountSettings } from './settings.js';
export { AmountRule, type Decimal, currencyDigits, formatMinorUnits, parseDecimal, toUnits } from './money.js';
export { header } from './headers.js';
export { squareSource, squareSignedBytes, SquareSettings } from './square.js';
