export {
  QUARANTINE_TABLE_SCHEMA,
  QuarantineEntry,
  type QuarantineInput,
  QuarantineReason,
  keptHeaders,
  quarantineId,
  quarantineKey,
} from './entry.js';
export {
  createQuarantineStore,
  createQuarantineTable,
  DEFAULT_QUARANTINE_TTL_DAYS,
  type QuarantineStore,
  type QuarantineStoreOptions,
} from './store.js';
