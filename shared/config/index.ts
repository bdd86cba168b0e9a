export { ENV, LEDGER_TABLE_SCHEMA } from './environment.js';
