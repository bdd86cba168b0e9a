import { CfnOutput, RemovalPolicy, SecretValue, Stack, type StackProps, Stage, type StageProps, Validations } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  type StageConfig,
  UPSTREAM_CEILING_PER_MINUTE,
  auditEnvironment,
  receiverEnvironment,
  stageSources,
  stageTiming,
  stageWorkerConcurrency,
  webhookSecretName,
  workerEnvironment,
} from '../config/index.js';
import { sourcesConfig } from '../config/sources.js';
import { SquareOrdersAccessSecrets } from '../constructs/square-orders-access.js';
import { ScheduledSmaregiReconcile } from '../constructs/scheduled-smaregi-reconcile.js';
import { SENDER_OPS, type SenderKind } from '../../shared/sources/ops.entry.js';
import { SmaregiAccessSecrets } from '../constructs/smaregi-access.js';
import { SMAREGI_ENV } from '../../shared/sources/smaregi/index.js';
import { SQUARE_ORDERS_ENV } from '../../shared/sources/square/index.js';
import { squareSourcesWithoutUrl, withNotificationUrls } from '../config/square.js';
import { ENV } from '../../shared/config/index.js';
import { addSenderAlarms, OperationsAlarms } from '../constructs/alarms.js';
import { BundledFunction, type FunctionLogs } from '../constructs/bundled-function.js';
import { OperationsDashboard } from '../constructs/dashboard.js';
import { EventQueue } from '../constructs/event-queue.js';
import { grantCustomerIndexQuery, grantLedgerKeys, LEDGER_ITEM_ACTIONS, LedgerTable } from '../constructs/ledger-table.js';
import { FUNCTION_LEDGER_KEYS } from '../../shared/ledger/index.js';
import { addQuarantineAlarm } from '../constructs/quarantine-alarm.js';
import { addUpstreamRejectedAlarm } from '../constructs/upstream-rejected-alarm.js';
import { QuarantineTable } from '../constructs/quarantine-table.js';
import { ScheduledAudit } from '../constructs/scheduled-audit.js';
import { ScheduledReconcile } from '../constructs/scheduled-reconcile.js';
import { redemptionSweepFor, type ScheduledRedemptionSweep } from '../constructs/scheduled-redemption-sweep.js';
import { ScheduledPointsReport } from '../constructs/scheduled-points-report.js';
import { WebhookApi } from '../constructs/webhook-api.js';
import { type ShopifyAppProxy, shopifyAppProxyFor } from '../constructs/shopify-app-proxy.js';
import { LogsKey } from '../constructs/logs-key.js';
import { PullRecovery } from '../constructs/pull-recovery.js';
import { EarnSchedule, earnsLater } from '../constructs/earn-schedule.js';
import { OUTPUT_KEYS, webhookSecretNameOutputKey, webhookUrlOutputKey } from '../outputs.js';

export type IntegrationStackProps = StackProps & { config: StageConfig };

/** Everything one stage runs: HTTP API -> receive-webhook -> SQS FIFO -> process-events -> ledger. */
export class IntegrationStack extends Stack {
  readonly config: StageConfig;
  readonly api: WebhookApi;
  readonly receiver: BundledFunction;
  readonly worker: BundledFunction;
  readonly pullRecovery: PullRecovery;
  /** The `days` ticker of provisional points (only where a source earns days after payment). */
  readonly earnSchedule: EarnSchedule | undefined;
  readonly events: EventQueue;
  readonly ledger: LedgerTable;
  readonly webhookSecrets: Record<string, Secret>;
  readonly alarms: OperationsAlarms;
  readonly quarantine: QuarantineTable;
  readonly audit: ScheduledAudit;
  readonly dashboard: OperationsDashboard;
  /** The Shopify App Proxy's link route and function; only with a `shopify` source. */
  appProxy: ShopifyAppProxy | undefined;
  /** The redemption sweep (unused codes past their end); only when the Shopify source redeems. */
  readonly redemptionSweep: ScheduledRedemptionSweep | undefined;
  /** Scheduled reconciliation with Shopify; only when the stage configures `reconcile`. */
  readonly reconcile: ScheduledReconcile | undefined;
  /** Scheduled reconciliation of the stage's Smaregi sources (missed webhooks); only when it has one. */
  readonly smaregiReconcile: ScheduledSmaregiReconcile | undefined;
  /** The monthly points report for the accountants (its bucket, key and function; docs/accounting.md). */
  readonly pointsReport: ScheduledPointsReport;

  constructor(scope: Construct, id: string, props: IntegrationStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.config = config;
    const sources = Object.keys(config.sources);
    // Data that matters survives the stack in production; elsewhere a stage is disposable.
    const removalPolicy = config.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = config.observability.logRetentionDays as RetentionDays;
    const logsKey = new LogsKey(this, 'LogsKey', { removalPolicy }).key;

    this.ledger = new LedgerTable(this, 'Ledger', { production: config.production });
    this.events = new EventQueue(this, 'Events', {
      visibilityTimeoutSeconds: stageTiming(config).visibilityTimeoutSeconds,
      maxReceiveCount: stageTiming(config).maxReceiveCount,
      dlqRetentionDays: config.queue.dlqRetentionDays,
    });
    this.webhookSecrets = this.createWebhookSecrets(sources, removalPolicy);
    // Referenced, never created: the operator owns the Open API credentials.
    const openApiSecret = Secret.fromSecretNameV2(this, 'OpenApiSecret', config.openApiSecretName);

    const logs = { logRetention, logsKey, removalPolicy };
    ({ receiver: this.receiver, quarantine: this.quarantine } = this.createReceiver(logs));
    const made = this.createWorker(logs, openApiSecret);
    ({ worker: this.worker, smaregiReconcile: this.smaregiReconcile } = made);
    this.pullRecovery = this.createPullRecovery();
    this.earnSchedule = earnsLater(config.sources) ? new EarnSchedule(this, 'EarnSchedule', { worker: this.worker.fn }) : undefined;
    this.api = this.createApi(sources, logs);
    this.appProxy = shopifyAppProxyFor(this, {
      config,
      api: this.api,
      queue: this.events.queue,
      secrets: this.webhookSecrets,
      openApiSecret,
      table: this.ledger.table,
      logs,
    });
    this.redemptionSweep = redemptionSweepFor(this, { config, table: this.ledger.table, openApiSecret, ...logs });
    this.addSquareNotificationUrls();
    this.pointsReport = new ScheduledPointsReport(this, 'PointsReport', { config, table: this.ledger.table, ...logs });
    this.reconcile =
      Object.keys(config.reconcile).length === 0
        ? undefined
        : new ScheduledReconcile(this, 'Reconcile', { config, table: this.ledger.table, queue: this.events.queue, ...logs });
    ({ alarms: this.alarms, audit: this.audit, dashboard: this.dashboard } = this.createOperations(logs, openApiSecret));
    this.mirrorTillPoints(made.smaregiAccess);
    this.addOutputs(sources);
  }

  /**
   * One secret per source, created holding an empty list; the operator puts the real secrets in
   * (docs/deploy.md). The template's value never changes, so CloudFormation never overwrites what the operator set.
   */
  private createWebhookSecrets(sources: string[], removalPolicy: RemovalPolicy): Record<string, Secret> {
    return Object.fromEntries(
      sources.map((source) => {
        const secret = new Secret(this, `WebhookSecret-${source}`, {
          secretName: webhookSecretName(this.config, source),
          description: `Webhook signing secrets of ${source}: {"secrets": ["current", "previous"]}`,
          secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ secrets: [] })),
          removalPolicy,
        });
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason:
            'The sender (Shopify, the POS) issues this secret; a rotation Lambda cannot change it there. ' +
            'Rotation is the documented manual overlap procedure (docs/deploy.md): both secrets accepted until the sender switched.',
        });
        return [source, secret];
      }),
    );
  }

  /** receive-webhook: verifies and queues deliveries, keeps those it cannot read in the quarantine table. */
  private createReceiver(logs: FunctionLogs): { receiver: BundledFunction; quarantine: QuarantineTable } {
    const { config } = this;
    const receiver = new BundledFunction(this, 'ReceiveWebhook', {
      code: 'receiveWebhook',
      description: 'Verifies, normalises and queues webhooks from Shopify and the POS',
      ...config.receiver,
      ...logs,
      environment: receiverEnvironment(config, {
        queueUrl: this.events.queue.queueUrl,
        webhookSecretArnsJson: this.toJsonString(
          Object.fromEntries(Object.entries(this.webhookSecrets).map(([s, secret]) => [s, secret.secretArn])),
        ),
      }),
    });
    this.events.queue.grant(receiver.role, 'sqs:SendMessage');
    for (const secret of Object.values(this.webhookSecrets)) secret.grantRead(receiver.role);
    // Authentic deliveries intake cannot read are kept here and answered 200 (npm run quarantine).
    const quarantine = new QuarantineTable(this, 'Quarantine', { production: config.production });
    receiver.fn.addEnvironment(ENV.QUARANTINE_TABLE, quarantine.table.tableName);
    quarantine.grantKeep(receiver.role);
    // No DynamoDB access for the activity record: what intake knows of a delivery travels in its message.
    return { receiver, quarantine };
  }

  /** process-events: the ledger, the Open API, the sources it reads orders from, and the queue it consumes. */
  private createWorker(
    logs: FunctionLogs,
    openApiSecret: ISecret,
  ): {
    worker: BundledFunction;
    smaregiReconcile: ScheduledSmaregiReconcile | undefined;
    smaregiAccess: { secrets: SmaregiAccessSecrets; json: string } | undefined;
  } {
    const { config } = this;
    const worker = new BundledFunction(this, 'ProcessEvents', {
      code: 'processEvents',
      description: 'Credits and debits points exactly once through the membership Open API',
      ...config.worker,
      ...logs,
      environment: workerEnvironment(config, {
        tableName: this.ledger.table.tableName,
        openApiSecretArn: openApiSecret.secretArn,
      }),
    });
    // Its own key prefixes only (dynamodb:LeadingKeys): every record of the protocol, never the audit's reversals.
    this.ledger.grantItemAccess(worker.role, FUNCTION_LEDGER_KEYS.worker);
    // Privacy requests (customers/redact, shop/redact, customers/data_request): the ledger and the quarantine.
    this.ledger.grantPrivacy(worker.role);
    worker.fn.addEnvironment(ENV.QUARANTINE_TABLE, this.quarantine.table.tableName);
    this.quarantine.grantRedact(worker.role);
    // The worker's receives, grant calls and breaker transitions, in the same table (its item access covers
    // them: `activity#`); the deliveries, calls and receives of an order ride on its ledger writes (shared/activity/carry.ts).
    worker.fn.addEnvironment(ENV.ACTIVITY_TABLE, this.ledger.table.tableName);
    openApiSecret.grantRead(worker.role);
    const squareOrders = new SquareOrdersAccessSecrets(this, 'SquareOrders', {
      config,
      removalPolicy: logs.removalPolicy,
      reader: worker.role,
    });
    if (Object.keys(squareOrders.secrets).length > 0) {
      worker.fn.addEnvironment(SQUARE_ORDERS_ENV, this.toJsonString(squareOrders.environmentValue()));
    }
    // Smaregi's webhooks name transactions only: the worker reads them with the app's credentials, and a
    // schedule feeds in those whose webhooks never came.
    const smaregi = new SmaregiAccessSecrets(this, 'Smaregi', { config, removalPolicy: logs.removalPolicy });
    let smaregiReconcile: ScheduledSmaregiReconcile | undefined;
    let smaregiAccess: { secrets: SmaregiAccessSecrets; json: string } | undefined;
    if (Object.keys(smaregi.secrets).length > 0) {
      const accessJson = this.toJsonString(smaregi.environmentValue());
      smaregiAccess = { secrets: smaregi, json: accessJson };
      smaregi.grantRead(worker.role);
      worker.fn.addEnvironment(SMAREGI_ENV, accessJson);
      smaregiReconcile = new ScheduledSmaregiReconcile(this, 'SmaregiReconcile', {
        config,
        table: this.ledger.table,
        queue: this.events.queue,
        access: smaregi,
        accessJson,
        ...logs,
      });
    }
    // Waiting is not failing: the worker sets a waiting event aside as a new message on the same queue
    // (shared/queue/aside.ts), and a copy defers itself with ChangeMessageVisibility (the event source's
    // consume grant below includes it, on this queue only).
    worker.fn.addEnvironment(ENV.QUEUE_URL, this.events.queue.queueUrl);
    this.events.queue.grant(worker.role, 'sqs:SendMessage');
    return { worker, smaregiReconcile, smaregiAccess };
  }

  /** The worker consumes the queue; the pull-recovery switch can pause that consumption during an outage. */
  private createPullRecovery(): PullRecovery {
    const { config } = this;
    const source = new SqsEventSource(this.events.queue, {
      batchSize: config.queue.batchSize,
      reportBatchItemFailures: true,
      // As many containers as the one upstream budget and the stage's latency can use (docs/deploy.md,
      // Throughput); the shared budget, not this number, keeps each endpoint under it.
      maxConcurrency: stageWorkerConcurrency(config),
    });
    this.worker.fn.addEventSource(source);
    return new PullRecovery(this, 'PullRecovery', {
      stageName: config.stageName,
      worker: this.worker.fn,
      role: this.worker.role,
      source,
    });
  }

  /** The HTTP API: one route per source, in front of receive-webhook. */
  private createApi(sources: string[], logs: FunctionLogs): WebhookApi {
    const { config } = this;
    const api = new WebhookApi(this, 'Webhooks', {
      sources,
      receiver: this.receiver.fn,
      rateLimit: config.api.rateLimit,
      burstLimit: config.api.burstLimit,
      logRetention: logs.logRetention,
      logsKey: logs.logsKey,
      removalPolicy: logs.removalPolicy,
    });
    for (const route of api.routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'Webhook senders cannot sign requests with IAM or present JWTs; every request is authenticated by its ' +
          'HMAC signature (Shopify X-Shopify-Hmac-Sha256, POS X-Signature, Square x-square-hmacsha256-signature) in receive-webhook before anything happens.',
      });
    }
    return api;
  }

  /** Square sources without a stated notification URL verify against their own route's URL. */
  private addSquareNotificationUrls(): void {
    const derivedSquare = squareSourcesWithoutUrl(this.config.sources);
    if (derivedSquare.length === 0) return;
    const urls = Object.fromEntries(derivedSquare.map((source) => [source, this.api.urlFor(source)]));
    this.receiver.fn.addEnvironment(ENV.SOURCES_CONFIG, this.toJsonString(withNotificationUrls(sourcesConfig(this.config.sources), urls)));
  }

  /**
   * Under a Smaregi source's `tillPoints: membership` a web redemption's deduction, give-back and claw-back
   * are mirrored to the member's till point record (shared/sources/smaregi/till-mirror.ts). The sweep, which
   * makes them and finishes the web legs' steps left open, reads the Smaregi app's credentials; so does the
   * nightly audit, which finishes the steps left unfinished (settleTillMirrors), reading the sources for it
   * (its reversals are never mirrored: shared/audit/reversal.ts). The App Proxy faces
   * the internet and never holds that access (it reads every transaction): it keeps its legs' steps and
   * queues each mirror to the worker (a `till_mirror` message), which holds it already.
   */
  private mirrorTillPoints(access: { secrets: SmaregiAccessSecrets; json: string } | undefined): void {
    const membership = Object.entries(this.config.sources).some(
      ([name, s]) => (s.kind ?? name) === 'smaregi' && (s as { tillPoints?: unknown }).tillPoints === 'membership',
    );
    if (!access || !membership) return;
    this.audit.function.fn.addEnvironment(ENV.SOURCES_CONFIG, JSON.stringify(sourcesConfig(this.config.sources)));
    for (const fn of [this.redemptionSweep?.function.fn, this.audit.function.fn]) {
      if (!fn) continue;
      access.secrets.grantRead(fn);
      fn.addEnvironment(SMAREGI_ENV, access.json);
    }
    // Each mirror step (its own ledger record), nothing else of the table added; the App Proxy's queue
    // grant (SendMessage) carries its messages.
    for (const fn of [this.appProxy?.function.fn, this.redemptionSweep?.function.fn, this.audit.function.fn]) {
      if (fn) grantLedgerKeys(this.ledger.table, fn, LEDGER_ITEM_ACTIONS, FUNCTION_LEDGER_KEYS.tillMirror);
    }
    // The audit settles steps in doubt: it finds the member's other steps and till notes by the index
    // (keys only; the worker and the sweep hold this Query already).
    grantCustomerIndexQuery(this.ledger.table, this.audit.function.fn);
  }

  /** What the operators watch: the alarms, the nightly audit and the dashboard over every function. */
  private createOperations(
    logs: FunctionLogs,
    openApiSecret: ISecret,
  ): { alarms: OperationsAlarms; audit: ScheduledAudit; dashboard: OperationsDashboard } {
    const { config } = this;
    // Where the functions publish their metrics (Powertools' namespace and service dimension).
    const metrics = { metricsNamespace: config.observability.metricsNamespace, serviceName: config.observability.serviceName };
    const reconcile = [
      ...(this.reconcile ? [{ name: 'ReconcileShopify', fn: this.reconcile.function.fn }] : []),
      ...(this.smaregiReconcile ? [{ name: 'ReconcileSmaregi', fn: this.smaregiReconcile.function.fn }] : []),
      ...(this.redemptionSweep ? [{ name: 'SweepRedemptions', fn: this.redemptionSweep.function.fn }] : []),
      { name: 'ExportPointsReport', fn: this.pointsReport.function.fn },
    ];
    const intakeAndWorker = [
      { name: 'ReceiveWebhook', fn: this.receiver.fn },
      { name: 'ProcessEvents', fn: this.worker.fn },
      ...(this.appProxy ? [{ name: 'ShopifyAppProxy', fn: this.appProxy.function.fn }] : []),
    ];
    const alarms = new OperationsAlarms(this, 'Alarms', {
      stageName: config.stageName,
      email: config.alarms.email,
      topicArn: config.alarms.topicArn,
      queue: this.events.queue,
      deadLetterQueue: this.events.deadLetterQueue,
      functions: [...intakeAndWorker, ...reconcile],
      ...metrics,
      oldestMessageAgeSeconds: config.alarms.oldestMessageAgeSeconds,
      upstreamFailurePercent: config.alarms.upstreamFailurePercent,
      upstreamBudgetPerMinute: config.rate.upstreamPerMinute,
      breakerOpenSeconds: config.retry.breakerOpenAlarmSeconds,
    });

    addQuarantineAlarm(alarms, alarms, { stageName: config.stageName, ...metrics });
    addUpstreamRejectedAlarm(alarms, metrics);

    if (this.reconcile) alarms.alarms.push(...this.reconcile.addMissingAlarms(alarms.topic));
    // Each configured sender's own alarms and graphs, as its registration declares them.
    const senders = [...new Set([...stageSources(config).values()].map((s) => s.kind as SenderKind))].map((kind) => SENDER_OPS[kind]);
    addSenderAlarms(alarms, metrics, senders);

    const audit = new ScheduledAudit(this, 'Audit', {
      table: this.ledger.table,
      openApiSecret,
      environment: auditEnvironment(config, { tableName: this.ledger.table.tableName, openApiSecretArn: openApiSecret.secretArn }),
      hourUtc: config.audit.hourUtc,
      memoryMiB: config.audit.memoryMiB,
      timeoutSeconds: config.audit.timeoutSeconds,
      ...logs,
      alarms,
      ...metrics,
    });
    const dashboard = new OperationsDashboard(this, 'Dashboard', {
      dashboardName: integrationStackName(config),
      ...metrics,
      queue: this.events.queue,
      deadLetterQueue: this.events.deadLetterQueue,
      functions: [...intakeAndWorker, { name: 'AuditLedger', fn: audit.function.fn }, ...reconcile],
      alarms: alarms.alarms,
      upstreamCeilingPerMinute: UPSTREAM_CEILING_PER_MINUTE,
      upstreamBudgetPerMinute: config.rate.upstreamPerMinute,
      senderWidgets: senders.flatMap((s) => s.dashboard),
    });
    return { alarms, audit, dashboard };
  }

  /** What the operator and the tools read back from the deployed stack (infra/outputs.ts). */
  private addOutputs(sources: string[]): void {
    const { config } = this;
    for (const source of sources) {
      new CfnOutput(this, webhookUrlOutputKey(source), {
        description: `Point ${source} webhooks here`,
        value: this.api.urlFor(source),
      });
      new CfnOutput(this, webhookSecretNameOutputKey(source), { value: webhookSecretName(config, source) });
    }
    new CfnOutput(this, OUTPUT_KEYS.ledgerTable, { value: this.ledger.table.tableName });
    new CfnOutput(this, OUTPUT_KEYS.deadLetterQueueUrl, { value: this.events.deadLetterQueue.queueUrl });
    new CfnOutput(this, OUTPUT_KEYS.queueUrl, { value: this.events.queue.queueUrl });
    new CfnOutput(this, OUTPUT_KEYS.alarmTopic, { value: this.alarms.topic.topicArn });
    new CfnOutput(this, OUTPUT_KEYS.quarantineTable, { value: this.quarantine.table.tableName });
    new CfnOutput(this, OUTPUT_KEYS.dashboard, { value: integrationStackName(config) });
    new CfnOutput(this, OUTPUT_KEYS.pointsReportBucket, { value: this.pointsReport.bucket.bucketName });
  }
}

/** The pipeline deploys a Stage; the same stack as a unit of deployment per environment. */
export class IntegrationStage extends Stage {
  readonly stack: IntegrationStack;

  constructor(scope: Construct, id: string, props: StageProps & { config: StageConfig }) {
    super(scope, id, props);
    this.stack = new IntegrationStack(this, 'Integration', {
      config: props.config,
      stackName: integrationStackName(props.config),
      description: `Loyalty points bridge (${props.config.stageName})`,
      terminationProtection: props.config.production,
    });
  }
}

export function integrationStackName(config: StageConfig): string {
  return `loyalty-bridge-${config.stageName}`;
}
