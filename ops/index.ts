/** The operator commands: one dispatcher (`opsCommand`, ops/main.ts) over every command, local and `--stage`. */
export { CLI_USAGE, cliCommand } from './command.js';
export { opsCommand } from './dispatch.js';
export { type LedgerReport, ledgerReport } from './ledger-report.js';
// aws.ts is not re-exported: it loads the AWS SDK clients and the infra configuration, so the commands
// import it only when --stage is given.
