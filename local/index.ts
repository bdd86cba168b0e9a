/** The local stack's public face: `npm start`, the demo, the end-to-end test and the chaos runs use it. */
export { startLocalStack, type LocalStack, type LocalStackOptions, type StartedParts } from './stack.js';
export { handleOf } from './handle.js';
export {
  connectToRunningStack,
  findRunningStack,
  readStackInfo,
  probeHealth,
  type LocalStackHandle,
  type RunningStack,
} from '../kit/local-stack/connect.js';
export { LOCAL_INFO_PATH, LocalStackInfoSchema, type LocalStackInfo } from '../kit/local-stack/info.js';
export type { CommandOutput } from '../ops/output.js';
export { LOCAL_AWS } from './dynamodb/index.js';
export {
  LOCAL_DEFAULTS,
  LOCAL_ENV,
  resolveLocalConfig,
  firstClientLogin,
  type LocalConfig,
} from '../kit/local-stack/config.js';
export {
  createLocalQueue,
  createManualClock,
  systemClock,
  LocalQueueError,
  isLocalQueueError,
  type DeadLetter,
  type LocalQueue,
  type LocalQueueOptions,
  type LocalQueueStats,
  type ManualClock,
  type QueueClock,
  type QueueConsumer,
} from './queue/index.js';
export { bannerLines, exampleShopifyCurl, examplePosScript, type BannerInput } from './banner.js';
