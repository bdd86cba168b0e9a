export {
  receiveWebhook,
  STATUS_OF,
  type IntakeAnswer,
  type IntakeDeps,
  type IntakeErrorKind,
  type IntakeLogger,
  type IntakeRequest,
  type IntakeResponse,
} from './intake.js';
export { DEFAULT_MAX_BODY_BYTES, readBody } from './body.js';
export { queueMessageFor } from './message.js';
export { IntakeConfigError, maxBodyBytesFrom, queueUrlFrom } from './config.js';
export { createJsonLogger } from '../logging/index.js';
