export { auditLedger, type AuditDeps, type AuditProgress } from './audit.js';
export {
  findingLine,
  noteLine,
  summaryLine,
  type AuditResult,
  type EntryView,
  type Finding,
  type FindingKind,
  type Note,
  type NoteKind,
} from './findings.js';
export { scanLedger, UnreadableRecordError, type LedgerRecords, type TimeRange } from './scan.js';
