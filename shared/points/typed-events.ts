import type * as z from 'zod';
import type { ProcessOutcome } from '../events/index.js';
import { invalidEvent } from './invalid-event.js';
import type { ProcessContext, Processor } from './processor.js';

/** One kind of queued message a processor handles itself (customer events, privacy requests). */
export interface TypedEvents<E, D> {
  /** The messages' `type`. */
  type: string;
  schema: z.ZodType<E>;
  /** Undefined: this setup cannot process them (answered configuration_error, retried, never dropped). */
  deps: D | undefined;
  /** What is missing when `deps` is: said in the configuration error. */
  needs: string;
  process(deps: D, event: E, context?: ProcessContext): Promise<ProcessOutcome>;
}

/** `next` with the messages of one `type` handled by `events`: parsed against its schema first. */
export function withTypedEvents<E, D>(next: Processor, events: TypedEvents<E, D>): Processor {
  return {
    ...next,
    async process(input, context) {
      if ((input as { type?: unknown } | null)?.type !== events.type) return next.process(input, context);
      const parsed = events.schema.safeParse(input);
      if (!parsed.success) return invalidEvent(parsed.error);
      if (events.deps === undefined) {
        return {
          kind: 'configuration_error',
          action: 'retry',
          errorKind: 'not_configured',
          reason: `${events.type} events need ${events.needs}`,
        };
      }
      return events.process(events.deps, parsed.data, context);
    },
  };
}
