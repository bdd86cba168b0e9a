import type { EventQueue } from '../shared/queue/index.js';
import type { AwsTarget } from './aws.js';

/**
 * The queue the worker takes events from: the stage's (SQS, the stack's QueueUrl) or the running
 * `npm start`'s (POST /__local/enqueue on its intake). Commands that would run the points protocol on
 * this machine queue the work here instead, so the worker does it with its own clock and settings.
 */
export async function workerQueue(target: Pick<AwsTarget, 'outputs' | 'sqs'> | { intakeUrl: string }): Promise<EventQueue> {
  if ('intakeUrl' in target) return (await import('./local-enqueue.js')).localEnqueue(target.intakeUrl);
  return (await import('../shared/queue/index.js')).createSqsQueue({ queueUrl: target.outputs.QueueUrl, client: target.sqs });
}
