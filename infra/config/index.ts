export {
  StageConfig,
  PipelineConfig,
  UPSTREAM_CEILING_PER_MINUTE,
  stageTiming,
  VISIBILITY_TIMEOUT_FACTOR,
  MIN_BURST,
  QUEUE_RETENTION_DAYS,
  type StageConfigInput,
} from './schema.js';
export {
  type StageFileErrorKind,
  type Deployment,
  loadDeployment,
  loadStageConfig,
  listStageNames,
  parsePipelineConfig,
  parseStageConfig,
} from './load.js';
export {
  appProxyEnvironment,
  type RedemptionRefs,
  sweepEnvironment,
  auditEnvironment,
  pointsReportEnvironment,
  receiverEnvironment,
  secretPrefix,
  smaregiCredentialsSecretName,
  stageProcessingSettings,
  stageSources,
  stageWorkerConcurrency,
  upstreamBudgetEnvironment,
  webhookSecretName,
  workerEnvironment,
} from './derived.js';
export { SourceConfig, SourceName, sourcesConfig } from './sources.js';
export { adminTokenSecretName, ReconcileSourceConfig } from './reconcile.js';
export { discountsTokenSecretName, redeemingShopify, redemptionProblem } from './redemption.js';
