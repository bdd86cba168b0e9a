import { auditLedger, findingLine, reversalDepsOf, scanLedger, summaryLine } from '../shared/audit/index.js';
import { processingSettingsFromEnv } from '../shared/config/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import type { Mismatch } from './compare.js';
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
  /** Extra entries of doubled markers it reversed (undefined: an audit that reverses nothing, e.g. a test's). */
  reversed: number | undefined;
}

export async function runFinalAudit(stack: ChaosStack): Promise<FinalAudit> {
  const api = createOpenApiClient({ credentials: staticCredentials({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }) });
  try {
    const { documentClient: client, tableName } = stack.ledgerTable;
    const records = await scanLedger(client, tableName);
    // Its reversals on the run's clock, with the worker's own settings (horizon, lease, insufficient-points policy).
    const processing = processingSettingsFromEnv(stack.handlerEnv);
    const reversal = reversalDepsOf({ client, tableName, clock: stack.clock.now, openapi: api, processing });
    const result = await auditLedger(records, { ledger: stack.ledger, openapi: api, reversal });
    return { summary: summaryLine(result), findings: result.findings.map(findingLine), reversed: result.reversed };
  } finally {
    await api.close();
  }
}

/**
 * Doubled entries only from late commits drawn beyond the horizon (a commit inside it the protocol must
 * find before sending again), and each reversed by the final audit exactly as it says.
 */
export function doublingMismatches(
  observed: { doubled: number; reversed: number },
  audit: Pick<FinalAudit, 'reversed'>,
  drawnBeyond: number,
): Mismatch[] {
  const mismatches: Mismatch[] = [];
  if (observed.doubled > drawnBeyond)
    mismatches.push({
      customer: null,
      what: `${observed.doubled} history entries doubled, more than the ${drawnBeyond} late commits drawn beyond the in-doubt horizon: an operation was sent again while an earlier send could still land`,
    });
  if (audit.reversed !== undefined && audit.reversed !== observed.reversed)
    mismatches.push({
      customer: null,
      what: `the final audit reversed ${audit.reversed} entries, the histories show ${observed.reversed} reversals that cancel a doubled entry`,
    });
  return mismatches;
}
