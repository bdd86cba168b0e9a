/** The quarantine: deliveries intake could not turn into events, kept (capped, headers filtered) for a person to inspect or replay. */
export {
  type KeepResult,
  MAX_COUNTED_DELIVERIES,
  QUARANTINE_TABLE_SCHEMA,
  type QuarantineEntry,
  type QuarantineInput,
  type QuarantineSummary,
} from './entry.js';
export { createQuarantineStore, createQuarantineTable, DEFAULT_QUARANTINE_TTL_DAYS, type QuarantineStore } from './store.js';
export { QuarantineEntryMissingError } from './errors.js';
