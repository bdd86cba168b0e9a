import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda invocation context for a handler run locally: the fields Powertools and handlers read. */
export function lambdaContext(functionName: string, timeoutMs: number, now: () => number = Date.now): Context {
  const deadline = now() + timeoutMs;
  const awsRequestId = randomUUID();
  const unsupported = () => {
    throw new Error('the callback-style context methods are not supported locally');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${awsRequestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
