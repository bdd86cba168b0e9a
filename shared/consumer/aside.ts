import { asideMessage } from '../queue/index.js';
import type { ConsumerDeps } from './types.js';

/** A copy of a waiting event, or an event of its own (a follow-up), for a group of its own (shared/queue/aside.ts). */
export interface AsideCopy {
  body: string;
  group?: string | undefined;
  receipt: string;
  seconds: number;
  now: number;
  waitingSince: number;
  reason: string;
  waits: number;
}

/** Sends a waiting event's copy to a group of its own, due `seconds` from now; false if it could not be sent. */
export async function setAside(deps: Pick<ConsumerDeps, 'queue' | 'logger'>, m: AsideCopy): Promise<boolean> {
  if (deps.queue === undefined) return false;
  try {
    await deps.queue.send(asideMessage({ ...m, wakeAt: m.now + m.seconds * 1000 }));
    return true;
  } catch (e) {
    deps.logger.warn('could not set a waiting event aside; it waits in place', {
      error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown',
    });
    return false;
  }
}
