/** Webhook intake: verify a sender's request, normalise it to a canonical event and queue it, or quarantine it. */
export { IntakeConfigError } from './config.js';
export { type IntakeDeps, type IntakeLogger, type IntakeRequest, receiveWebhook } from './intake.js';
export { queueMessageFor } from './message.js';
export { fromFutureProblem } from './replay.js';
