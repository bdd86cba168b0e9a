import { auditLedger, findingLine, scanLedger, summaryLine } from '../shared/audit/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import { CHAOS_CLIENT } from './emulator-config.js';
import type { ChaosStack } from './stack.js';

/**
 * The run's final audit (issue 50 item 6): once the queue has drained and every late commit has landed,
 * the ledger audit runs as `npm run audit` does, through shared/audit's public functions, with its own
 * Open API client; the final check then compares the model with the histories it left.
 */

export interface FinalAudit {
  /** The audit's last line (`audit: orders=… refunds=… drift=…`). */
  summary: string;
  /** Its findings, one line each (drift: what disagreed before it healed anything). */
  findings: string[];
  /** Extra entries it reversed, when the audit reverses duplicates (undefined: this audit does not). */
  reversed: number | undefined;
}

export async function runFinalAudit(stack: ChaosStack): Promise<FinalAudit> {
  const api = createOpenApiClient({ credentials: staticCredentials({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }) });
  try {
    const records = await scanLedger(stack.ledgerTable.documentClient, stack.ledgerTable.tableName);
    const result = await auditLedger(records, { ledger: stack.ledger, openapi: api });
    const reversed = (result as { reversed?: unknown }).reversed;
    return {
      summary: summaryLine(result),
      findings: result.findings.map(findingLine),
      reversed: typeof reversed === 'number' ? reversed : undefined,
    };
  } finally {
    await api.close();
  }
}
