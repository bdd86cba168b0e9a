export { ledgerReport, type LedgerReport } from './ledger-report.js';
export { cliCommand, CLI_USAGE } from './command.js';
// aws.ts is not re-exported: it loads the AWS SDK clients and the infra configuration, so the CLI
// imports it only when --stage is given.
