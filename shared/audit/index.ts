/** The ledger audit: reconcile ledger records with the membership service's point histories and report what disagrees. */
export { auditLedger, type AuditProgress } from './audit.js';
export { type AuditResult, type AuditSummary, auditSummary, findingLine, noteLine, summaryLine } from './findings.js';
export { type LedgerRecords, scanLedger, type TimeRange } from './scan.js';
export {
  type ExtraEntry,
  type ReversalDeps,
  type ReversalResult,
  type ReversalStep,
  reverseExtra,
  reversalDepsOf,
  type ReversalSetup,
} from './reversal.js';
export { isSettlement, shortfallEntryId } from './shortfalls.js';
export { auditDaysFromEnv, DEFAULT_AUDIT_DAYS } from './days.js';
export { type AuditReportSinks, reportAuditRun } from './report.js';
