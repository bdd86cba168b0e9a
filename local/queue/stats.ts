import { allMessages } from './groups.js';
import type { QueueState } from './state.js';
import type { LocalQueueStats } from './types.js';

/** What the queue holds now, counted as the console and the waits report it. */
export function queueStats(q: QueueState): LocalQueueStats {
  const now = q.settings.clock.now();
  let visible = 0;
  let processing = 0;
  let waitingRetry = 0;
  for (const m of allMessages(q)) {
    if (m.inRun > 0) processing += 1;
    else if (m.receipt !== undefined && m.receipt.visibleAt > now) waitingRetry += 1;
    else visible += 1;
  }
  let receivableGroups = 0;
  for (const messages of q.groups.values()) {
    const head = messages[0];
    if (head !== undefined && (head.receipt === undefined || head.receipt.visibleAt <= now)) receivableGroups += 1;
  }
  return {
    visible,
    processing,
    waitingRetry,
    deadLettered: q.dead.length,
    ...q.counters,
    receivableGroups,
    runningBatches: q.running.size,
    paused: q.paused,
  };
}
