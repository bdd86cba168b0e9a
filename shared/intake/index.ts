/** Webhook intake: verify a sender's request, normalise it to a canonical event and queue it, or quarantine it. */
export { maxBodyBytesFromEnv, queueUrlFromEnv, replayWindowDaysFromEnv } from './config.js';
export { type DeliveryRecorder, deliveryMetricsFromEnv } from './delivery-metrics.js';
export { type IntakeAnswer, type IntakeDeps, type IntakeLogger, type IntakeRequest, receiveWebhook } from './intake.js';
export { quarantineFromEnv } from './quarantine.js';
export { fromFutureProblem } from './replay.js';
