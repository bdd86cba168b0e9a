/** The quarantine: deliveries intake could not turn into events, kept (capped, headers filtered) for a person to inspect or replay. */
export { QUARANTINE_TABLE_SCHEMA, type QuarantineEntry, type QuarantineInput } from './entry.js';
export { createQuarantineStore, createQuarantineTable, DEFAULT_QUARANTINE_TTL_DAYS, type QuarantineStore } from './store.js';
