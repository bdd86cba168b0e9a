import { stageSources } from '../infra/config/derived.js';
import { createDocumentClient } from '../shared/ledger/index.js';
import { type StageOptions, stageStack } from './aws.js';
import type { PointsReportTarget } from './points-report-target.js';

/**
 * `npm run points-report -- --stage <name>`: the stage's ledger table (the stack's outputs) and its
 * sources (the stage file). Reads the table only (Scan): no Open API, no queue. Needs AWS credentials.
 */
export async function stagePointsReportTarget(options: StageOptions): Promise<PointsReportTarget> {
  const { stage, outputs } = await stageStack(options);
  const client = createDocumentClient({ region: stage.region });
  return {
    client,
    tableName: outputs.LedgerTableName,
    sources: stageSources(stage),
    close: async () => client.destroy(),
  };
}
