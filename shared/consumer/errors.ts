import type { ProcessOutcome } from '../points/index.js';
import { KindedError } from '../errors/index.js';

/** The root of the consumer's errors: each has a `kind` (why the record goes back) and its class's `name`. */
export abstract class ConsumerError extends KindedError {
  override readonly name: string = 'ConsumerError';
}

/** Why a record goes back to the queue (Powertools batch marks it failed; the kind says why). */
export class RetryLater extends ConsumerError {
  override readonly name = 'RetryLater';
  readonly kind = 'retry_later' as const;
  constructor(readonly outcome: ProcessOutcome) {
    super(`retry: ${outcome.kind}`);
  }
}

/** A set-aside copy received before its wake time: it waits on. */
export class NotYet extends ConsumerError {
  override readonly name = 'NotYet';
  readonly kind = 'not_yet' as const;
  constructor(reason: string) {
    super(`retry: waiting (${reason})`);
  }
}

/** The breaker is open and the event could not be set aside: it goes back without calling the service. */
export class CircuitOpen extends ConsumerError {
  override readonly name = 'CircuitOpen';
  readonly kind = 'circuit_open' as const;
  constructor() {
    super('retry: circuit_open (the Open API is failing; waiting for the next probe)');
  }
}

/** Something that was not an Error was thrown while processing. */
export class Failed extends ConsumerError {
  override readonly name = 'Failed';
  readonly kind = 'failed' as const;
}

export class PullSwitchError extends ConsumerError {
  override readonly name = 'PullSwitchError';
  readonly kind = 'event_source_mapping_unknown' as const;
}
