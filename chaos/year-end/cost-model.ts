/**
 * From the year-end model's counts to the billed quantities bench/cost.ts prices. Memory is what the
 * production stage configures (billing is by configured memory). Log bytes are estimates from the
 * lines each function writes per request (not measured here): Lambda's START/END/REPORT lines, the
 * receiver's one access line, the worker's outcome line and its EMF metrics line per message, the
 * App Proxy's access line.
 */
import { readFileSync } from 'node:fs';
import type { UsageCounts } from '../../kit/cost.js';
import type { Usage } from './simulate.js';

export const LOG_BYTES = {
  platformPerInvocation: 330,
  receiverPerRequest: 450,
  workerPerMessage: 1_050,
  appProxyPerRequest: 600,
} as const;

/** The App Proxy's memory (its construct's default). */
export const APP_PROXY_MEMORY_MIB = 256;

/** The production stage's memory per function (read as data: chaos/ does not import infra/). */
export function productionMemory(): { receiver: number; worker: number } {
  const file = new URL('../../infra/stages/production.json', import.meta.url);
  const stage = JSON.parse(readFileSync(file, 'utf8')) as { receiver?: { memoryMiB?: number }; worker?: { memoryMiB?: number } };
  return { receiver: stage.receiver?.memoryMiB ?? 256, worker: stage.worker?.memoryMiB ?? 512 };
}

export function usageCounts(u: Usage, memory = productionMemory()): UsageCounts {
  const gbs = (mib: number, ms: number) => (mib / 1024) * (ms / 1000);
  const invocations = u.receiverInvocations + u.workerInvocations + u.appProxyInvocations;
  return {
    apiGatewayRequests: u.apiGatewayRequests,
    lambdaRequests: invocations,
    lambdaGbSeconds: gbs(memory.receiver, u.receiverMs) + gbs(memory.worker, u.workerMs) + gbs(APP_PROXY_MEMORY_MIB, u.appProxyMs),
    sqsRequests: u.sqsSends + u.sqsReceives + u.sqsEmptyReceives + u.sqsDeletes + u.sqsVisibilityChanges,
    // Items under 1 KB: one unit each; a lease on the budget is one conditional UpdateItem.
    dynamoWriteUnits: u.ledgerWrites + u.budgetLeases,
    dynamoReadUnits: u.ledgerReads,
    logBytes:
      invocations * LOG_BYTES.platformPerInvocation +
      u.receiverInvocations * LOG_BYTES.receiverPerRequest +
      u.workerAttempts * LOG_BYTES.workerPerMessage +
      u.appProxyInvocations * LOG_BYTES.appProxyPerRequest,
  };
}
