/**
 * The functions' logs hold customer ids (card numbers) and the API's access logs caller addresses:
 * every log group of a stage is encrypted with the stage's own rotated key, which CloudWatch Logs may
 * use only for this account's log groups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesiseRealApp, type SynthesisedApp } from '../support/app.js';

let app: SynthesisedApp;
beforeAll(() => {
  app = synthesiseRealApp();
});
afterAll(() => app?.dispose());

type Statement = { Principal?: { Service?: unknown }; Action?: unknown; Condition?: Record<string, Record<string, unknown>> };

describe('log groups of every stage', () => {
  it('are all encrypted with a KMS key', () => {
    for (const [name, { template }] of app.stages) {
      const groups = Object.values(template.findResources('AWS::Logs::LogGroup')) as Array<{ Properties: { KmsKeyId?: unknown } }>;
      expect(groups.length, name).toBeGreaterThanOrEqual(3);
      for (const g of groups) expect(g.Properties.KmsKeyId, name).toBeDefined();
    }
  });

  it('use a rotated key that CloudWatch Logs may use only for log groups of this account and region', () => {
    for (const [name, { template }] of app.stages) {
      const keys = Object.values(template.findResources('AWS::KMS::Key')) as Array<{
        Properties: { EnableKeyRotation?: boolean; KeyPolicy: { Statement: Statement[] } };
      }>;
      const logsKey = keys.find((k) => JSON.stringify(k.Properties.KeyPolicy).includes('logs.'));
      expect(logsKey, name).toBeDefined();
      expect(logsKey!.Properties.EnableKeyRotation).toBe(true);
      const forLogs = logsKey!.Properties.KeyPolicy.Statement.filter((s) => JSON.stringify(s.Principal ?? {}).includes('logs.'));
      expect(forLogs).toHaveLength(1);
      expect(JSON.stringify(forLogs[0]!.Condition?.ArnLike?.['kms:EncryptionContext:aws:logs:arn'])).toContain(':log-group:*');
    }
  });
});
