import type { QueueMessage } from '../../shared/queue/index.js';
import { LocalQueueError } from './errors.js';

/** SQS's limits, so a message the local queue accepts is one the real FIFO queue accepts too. */
export const MAX_BODY_BYTES = 262_144;
const ID_MAX = 128;
// MessageGroupId / MessageDeduplicationId: alphanumerics and punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~).
const ID_PATTERN = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]+$/;
// Message body: #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF.
const BODY_FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function validateMessage(message: QueueMessage): void {
  if (typeof message.body !== 'string' || message.body.length === 0) {
    throw new LocalQueueError('invalid_message', 'message body must be a non-empty string');
  }
  if (Buffer.byteLength(message.body, 'utf8') > MAX_BODY_BYTES) {
    throw new LocalQueueError('invalid_message', `message body exceeds ${MAX_BODY_BYTES} bytes`);
  }
  if (BODY_FORBIDDEN.test(message.body)) {
    throw new LocalQueueError('invalid_message', 'message body contains characters SQS does not accept');
  }
  checkId('groupId', message.groupId);
  checkId('deduplicationId', message.deduplicationId);
}

function checkId(field: 'groupId' | 'deduplicationId', value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > ID_MAX) {
    throw new LocalQueueError('invalid_message', `${field} must be 1 to ${ID_MAX} characters`);
  }
  if (!ID_PATTERN.test(value)) {
    throw new LocalQueueError('invalid_message', `${field} may hold only letters, digits and punctuation`);
  }
}
