import type { ProcessOutcome } from '../points/index.js';

/** Why a record goes back to the queue (Powertools batch marks it failed; the kind says why). */
export class RetryLater extends Error {
  readonly kind = 'retry_later' as const;
  constructor(readonly outcome: ProcessOutcome) {
    super(`retry: ${outcome.kind}`);
  }
}

/** A set-aside copy received before its wake time: it waits on. */
export class NotYet extends Error {
  readonly kind = 'not_yet' as const;
  constructor(reason: string) {
    super(`retry: waiting (${reason})`);
  }
}

/** The breaker is open and the event could not be set aside: it goes back without calling the service. */
export class CircuitOpen extends Error {
  readonly kind = 'circuit_open' as const;
  constructor() {
    super('retry: circuit_open (the Open API is failing; waiting for the next probe)');
  }
}

/** Something that was not an Error was thrown while processing. */
export class Failed extends Error {
  readonly kind = 'failed' as const;
}

export class PullSwitchError extends Error {
  override readonly name = 'PullSwitchError';
  readonly kind = 'event_source_mapping_unknown' as const;
}
