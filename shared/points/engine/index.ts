/**
 * The protocol engine: every state-changing points call (credit, debit, deduction, give-back, reversal)
 * is sent here, with one rule for what an ending proves, one in-doubt horizon and one complete search of
 * the history. Claims and records stay with each record's owner (shared/ledger); the order between them
 * is claim -> (doubt? search) -> act -> record.
 */
export { type PointsCall, type PointsCallApi, provesNotRun, sendPointsCall, type Sent } from './act.js';
export {
  creditNotVisibleUntil,
  type Doubt,
  type DoubtFields,
  doubtAfterSend,
  doubtFields,
  doubtOf,
  type HorizonSettings,
} from './doubt.js';
export { act, checkDoubt, type DoubtCheck, type EngineDeps, type Operation, type OperationResult, runOperation } from './run.js';
export { SEARCH_MAX_PAGES, SEARCH_SKEW_ALLOWANCE_MS, type SearchResult, searchHistory } from './search.js';
