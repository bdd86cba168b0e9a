import { rmSync } from 'node:fs';
import { type App, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../infra/build-app.js';
import { buildRealApp } from './support/app.js';

const outdirs: string[] = [];
function realApp(): { app: App; built: BuiltApp } {
  const built = buildRealApp();
  outdirs.push(built.outdir);
  return built;
}

let real: { app: App; built: BuiltApp };
beforeAll(() => {
  real = realApp();
});
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** Every acknowledgement recorded anywhere in the app: id and reason. */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: unknown }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, { reason?: unknown } | unknown>).map(([id, value]) => ({
          path: c.node.path,
          id,
          reason: typeof value === 'object' && value !== null && 'reason' in value ? value.reason : value,
        })),
      ),
  );
}

describe('cdk-nag (AwsSolutions)', () => {
  it('finds nothing unacknowledged anywhere in the app, the stages the pipeline deploys included', () => {
    const result = new AwsSolutionsChecks(real.app).validateScope(real.app);
    expect(result.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(result.success).toBe(true);
  });

  it('has a written reason for every acknowledgement', () => {
    const acks = acknowledgements(real.app);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.reason, `${ack.path} ${ack.id}`).toEqual(expect.any(String));
      expect((ack.reason as string).length, `${ack.path} ${ack.id}`).toBeGreaterThan(40);
    }
  });

  it('acknowledges nothing in a stage but open routes (signed webhooks) and sender-issued secrets', () => {
    const stageAcks = acknowledgements(real.app).filter((a) => a.path.includes('/Integration/'));
    expect(new Set(stageAcks.map((a) => a.id.replace(/^annotation::/i, '')))).toEqual(new Set(['AwsSolutions-APIG4', 'AwsSolutions-SMG4']));
  });

  // Runs after the tests above (vitest keeps declaration order in a file): it changes the app.
  it('reports a finding inside a stage the pipeline deploys', () => {
    const { app, built } = real;
    const production = built.pipeline.stages.find((s) => s.stack.config.production)!.stack;
    new Queue(production, 'Unprotected', { encryption: QueueEncryption.UNENCRYPTED, enforceSSL: false });
    const paths = new AwsSolutionsChecks(app)
      .validateScope(app)
      .violations.flatMap((v) => v.violatingResources.map((r) => r.constructPath));
    expect(paths).toContain('LoyaltyBridgePipeline/Production/Integration/Unprotected/Resource');
  });

  it('fails `cdk synth` of the app on a finding nobody acknowledged', () => {
    const { app, built } = realApp();
    new Queue(built.pipeline, 'Unprotected', { encryption: QueueEncryption.UNENCRYPTED, enforceSSL: false });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
    // Synthesising the whole pipeline bundles every function: a few seconds alone, more on a busy machine.
  }, 120_000);
});
