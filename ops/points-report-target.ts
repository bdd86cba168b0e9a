import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceSettingsSet } from '../shared/sources/index.js';

/** What the report reads: the ledger table and the stage's sources (kinds, the value of a point). */
export interface PointsReportTarget {
  client: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  sources: SourceSettingsSet;
  close(): Promise<void>;
}
