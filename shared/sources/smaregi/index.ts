/** Smaregi's Platform API: reading a POS transaction's current state, and what it earns (Japan's basis). */
export { createSmaregiClient, type CustomerPoints, SMAREGI_HOSTS, type SmaregiClient, type SmaregiClientOptions } from './client.js';
export { SmaregiError, type SmaregiErrorKind } from './errors.js';
export { SMAREGI_ENV, SmaregiAccess, smaregiFromEnv } from './from-env.js';
export { instrumentSmaregi } from './instrument.js';
export { lineEarns, type PointsSpentRule, transactionAmount } from './money.js';
export {
  MAX_WINDOW_DAYS,
  reconcileSmaregi,
  type SmaregiReconcileDeps,
  type SmaregiReconcileResult,
  smaregiTime,
  smaregiWindows,
} from './reconcile.js';
export {
  type ChainOrder,
  type ChainReader,
  MAX_SUPPLEMENTS,
  type OrderFacts,
  readChain,
  remainderOf,
  type SaleChain,
  supplementId,
} from '../../points/index.js';
export {
  CANCEL_REFUND_ID,
  type ResolveFacts,
  type Resolution,
  resolveTransaction,
  returnRefundId,
  type SmaregiStateSettings,
} from './resolve.js';
export { applyRefusal, type SaleFacts, saleFacts, type SaleReader, tillReturnRefund } from './returns.js';
export { countingShortfalls, giveBackId, readSpends, type SpendStep, spendEvents, spendId } from './spend.js';
export { createLegMirror, finishOpenLegs, type LegMirror, type OpenLegsFinished } from './leg-mirror.js';
export {
  mirrorPointChange,
  type PointChange,
  settleTillMirrors,
  type TillMirrorDeps,
  voidPlanned,
} from './till-mirror.js';
export { dueEarnMirror } from './due-mirror.js';
export { processTillMirrorEvent, withTillMirrorEvents } from './till-mirror-events.js';
export { auditTillMirrorFromEnv, settleTillMirrorsReported, tillMirrorDepsFromEnv, tillPointsSourceOf } from './till-mirror-env.js';
export { checkPointSettings, type PointSettingsCheck } from './check.js';
export { type AppCredentials, SMAREGI_SCOPES } from './token.js';
export { linkOf, SmaregiCustomer, SmaregiDetail, SmaregiTransaction, SmaregiTransactionListItem } from './transaction.js';
