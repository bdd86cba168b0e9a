import { DEFAULT_MIN_CALL_MS, type InvocationBudget } from '../openapi/index.js';
import type { Processor } from '../points/index.js';

/**
 * Not started (nothing claimed, nothing called) when the invocation has less time left than one Open API
 * call needs: the event goes back to the queue as an upstream timeout rather than be cut off by the Lambda's.
 */
export function withTimeToStart(processor: Processor, budget: Pick<InvocationBudget, 'remainingMs'>): Processor {
  return {
    ...processor,
    process(body, context) {
      const left = budget.remainingMs();
      if (left !== undefined && left < DEFAULT_MIN_CALL_MS) {
        return Promise.resolve({
          kind: 'upstream_error',
          action: 'retry',
          errorKind: 'timeout',
          reason: 'too little time left in this invocation to start',
        });
      }
      return processor.process(body, context);
    },
  };
}
