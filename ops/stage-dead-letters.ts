import { type AwsTarget, listDeadLetters, redriveDeadLetters } from './aws.js';
import { deadLetterReason } from './dead-letter-reason.js';

/**
 * `redrive` and `dlq` against a deployed stage: the SQS dead-letter queue, each message with the
 * reason the stage's ledger kept. Closes the target. Exit code 0.
 */
export async function stageDeadLetters(
  aws: AwsTarget,
  command: { name: 'redrive'; dryRun: boolean } | { name: 'dlq' },
  print: (line: string) => void,
): Promise<number> {
  const reason = (body: string) => deadLetterReason(aws.ledger, body);
  try {
    if (command.name === 'dlq') {
      const listed = await listDeadLetters(aws.sqs, aws.outputs, reason);
      print(listed.length === 0 ? 'the dead-letter queue is empty' : JSON.stringify(listed, null, 2));
      return 0;
    }
    const moved = await redriveDeadLetters(aws.sqs, aws.outputs, { dryRun: command.dryRun, print, reason });
    print(
      command.dryRun
        ? `dry run: ${moved} message(s) in the dead-letter queue, nothing moved`
        : `moved ${moved} message(s) from the dead-letter queue back to the queue`,
    );
    return 0;
  } finally {
    await aws.close();
  }
}
