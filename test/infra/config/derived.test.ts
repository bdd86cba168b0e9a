import { replayWindowDaysFromEnv } from '../../../shared/intake/config.js';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../../shared/config/index.js';
// The worker's own reader of its settings: the infra must write what it reads.
import { processingSettingsFromEnv } from '../../../shared/config/processing-settings.js';
import { loadSources } from '../../../shared/sources/index.js';
import {
  loadStageConfig,
  receiverEnvironment,
  stageProcessingSettings,
  stageSources,
  stageTiming,
  workerEnvironment,
} from '../../../infra/config/index.js';
import { localTiming } from '../../../kit/local-stack/timing.js';
import { INFRA_DIR } from '../../../infra/paths.js';

const refs = { tableName: 'ledger', openApiSecretArn: 'arn:openapi' };

describe('the functions’ environment derived from a stage', () => {
  it('gives the worker settings its own reader accepts, with the configured values', () => {
    const stage = loadStageConfig(INFRA_DIR, 'production');
    const settings = processingSettingsFromEnv(workerEnvironment(stage, refs));
    expect(settings).toMatchObject({
      insufficientPointsPolicy: stage.processing.insufficientPointsPolicy,
      refundWaitSeconds: stage.processing.refundWaitSeconds,
      ledgerTtlDays: stage.processing.ledgerTtlDays,
      leaseSeconds: stageTiming(stage).leaseSeconds,
      upstreamBudgetPerMinute: stage.rate.upstreamPerMinute,
    });
  });

  it('gives an operator command that processes (reprocess) exactly the settings the stage’s worker reads', () => {
    const production = loadStageConfig(INFRA_DIR, 'production');
    const stage = {
      ...production,
      processing: { ...production.processing, insufficientPointsPolicy: 'park' as const, ledgerTtlDays: 700 },
    };
    const settings = stageProcessingSettings(stage);
    expect(settings).toEqual(processingSettingsFromEnv(workerEnvironment(stage, refs)));
    expect(settings).toMatchObject({ insufficientPointsPolicy: 'park', ledgerTtlDays: 700 });
  });

  it('gives operator commands the linking settings of the stage’s sources, as its functions read them', () => {
    const staging = loadStageConfig(INFRA_DIR, 'staging');
    const shopDomains = ['jp-shop.myshopify.com'];
    const shopify = { ...staging.sources.shopify, externalKey: 'shop_jp', retroCreditDays: 7, shopDomains };
    const stage = { ...staging, sources: { ...staging.sources, shopify } } as typeof staging;
    // Staging redeems: its linking also carries the redemption settings (compared whole below).
    expect(stageSources(stage).get('shopify')?.customerLinking?.()).toMatchObject({
      externalKey: 'shop_jp',
      retroCreditDays: 7,
      shopDomains,
    });
    const env = receiverEnvironment(stage, { queueUrl: 'q', webhookSecretArnsJson: '{}' });
    expect(loadSources(env[ENV.SOURCES_CONFIG]).get('shopify')?.customerLinking?.()).toEqual(
      stageSources(stage).get('shopify')?.customerLinking?.(),
    );
  });

  it('gives the worker the backoff, horizon and breaker settings of the one timing derivation', () => {
    const stage = loadStageConfig(INFRA_DIR, 'production');
    const settings = processingSettingsFromEnv(workerEnvironment(stage, refs));
    const timing = stageTiming(stage);
    expect(settings).toMatchObject({
      backoffBaseSeconds: timing.backoffBaseSeconds,
      backoffCapSeconds: timing.backoffCapSeconds,
      retryHorizonSeconds: timing.retryHorizonSeconds,
      circuitOpenSeconds: timing.circuitOpenSeconds,
    });
  });

  it('derives for a stage exactly what npm start derives with no variable set', () => {
    const stage = loadStageConfig(INFRA_DIR, 'staging');
    expect(stageTiming(stage)).toEqual(localTiming({}));
  });

  it('gives the worker a lease at least as long as its timeout', () => {
    const stage = loadStageConfig(INFRA_DIR, 'staging');
    expect(Number(workerEnvironment(stage, refs)[ENV.LEASE_SECONDS])).toBeGreaterThanOrEqual(stage.worker.timeoutSeconds);
  });

  it('enables in the receiver exactly the sources the stage configures', () => {
    const stage = loadStageConfig(INFRA_DIR, 'staging');
    const only = { ...stage, sources: { shopify: stage.sources.shopify! } };
    const env = receiverEnvironment(only, { queueUrl: 'q', webhookSecretArnsJson: '{}' });
    expect([...loadSources(env[ENV.SOURCES_CONFIG]).keys()]).toEqual(['shopify']);
  });

  it('keeps the webhook secret name out of the receiver’s source settings', () => {
    const stage = loadStageConfig(INFRA_DIR, 'staging');
    const named = { ...stage, sources: { ...stage.sources, pos: { ...stage.sources.pos!, webhookSecretName: 'x/pos' } } };
    const env = receiverEnvironment(named, { queueUrl: 'q', webhookSecretArnsJson: '{}' });
    expect(env[ENV.SOURCES_CONFIG]).not.toContain('webhookSecretName');
  });

  it('sets the Powertools service name, log level and metrics namespace on both functions', () => {
    const stage = loadStageConfig(INFRA_DIR, 'production');
    const expected = {
      POWERTOOLS_SERVICE_NAME: stage.observability.serviceName,
      POWERTOOLS_LOG_LEVEL: stage.observability.logLevel,
      POWERTOOLS_METRICS_NAMESPACE: stage.observability.metricsNamespace,
    };
    expect(workerEnvironment(stage, refs)).toMatchObject(expected);
    expect(receiverEnvironment(stage, { queueUrl: 'q', webhookSecretArnsJson: '{}' })).toMatchObject(expected);
  });
});

describe('one retention setting for the ledger and the replay window', () => {
  it('gives the receiver the ledger retention the worker gets, so intake derives its replay window from it', () => {
    const stage = loadStageConfig(INFRA_DIR, 'production');
    const receiver = receiverEnvironment(stage, { queueUrl: 'q', webhookSecretArnsJson: '{}' });
    const worker = workerEnvironment(stage, refs);
    expect(receiver[ENV.LEDGER_TTL_DAYS]).toBe(worker[ENV.LEDGER_TTL_DAYS]);
    expect(replayWindowDaysFromEnv(receiver)).toBe(stage.processing.ledgerTtlDays - 30);
  });
});
