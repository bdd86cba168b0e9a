import { join } from 'node:path';
import {
  createEventSourceMappingSwitch,
  ledgerPlannedPause,
  type PlannedPauseRecords,
  type PullSwitch,
  pausePulling,
  pullingStatus,
  pullMappingParameterName,
  resumePulling,
} from '../shared/consumer/index.js';
import { loadStageConfig, QUEUE_RETENTION_DAYS } from '../infra/config/index.js';
import { OpsError } from './errors.js';
import type { AwsTarget, StageOptions } from './aws.js';
import { DAY_MS, formatJst } from '../shared/time/index.js';

/** Where `npm run pause` / `npm run resume` act: the worker's pull switch and the planned-pause record. */
export interface PullingTarget {
  pull: PullSwitch;
  records: PlannedPauseRecords;
  /** How long the queue keeps a message (what a pause may last without losing events); undefined: no limit (local). */
  retentionDays: number | undefined;
}

/** The running `npm start`'s queue, paused and resumed through its admin routes (local/admin.ts). */
export function localPull(intakeUrl: string): PullSwitch {
  const call = async (method: 'GET' | 'POST', path: string) => {
    const res = await fetch(`${intakeUrl}${path}`, { method, signal: AbortSignal.timeout(10_000) });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new OpsError('usage', `${method} ${path} answered ${res.status}: is the local stack current (npm start)?`);
    }
    return (await res.json()) as { paused?: boolean };
  };
  return {
    pause: async () => void (await call('POST', '/__local/pause')),
    resume: async () => void (await call('POST', '/__local/resume')),
    isPaused: async () => (await call('GET', '/__local/queue')).paused === true,
  };
}

/** A stage: its event source mapping (the id from the SSM parameter the stack writes) and its ledger table. */
export async function stagePulling(options: StageOptions, aws: AwsTarget): Promise<PullingTarget> {
  const stage = loadStageConfig(options.infraDir ?? join(process.cwd(), 'infra'), options.stage);
  const [{ LambdaClient }, { SSMClient }] = await Promise.all([import('@aws-sdk/client-lambda'), import('@aws-sdk/client-ssm')]);
  const pull = createEventSourceMappingSwitch({
    parameterName: pullMappingParameterName(stage.stageName),
    lambda: new LambdaClient({ region: stage.region }),
    ssm: new SSMClient({ region: stage.region }),
  });
  return {
    pull,
    records: ledgerPlannedPause({ client: aws.documentClient, tableName: aws.tableName }),
    retentionDays: QUEUE_RETENTION_DAYS,
  };
}

export function localPulling(handle: { intakeUrl: string; documentClient: AwsTarget['documentClient']; tableName: string }): PullingTarget {
  return {
    pull: localPull(handle.intakeUrl),
    records: ledgerPlannedPause({ client: handle.documentClient, tableName: handle.tableName }),
    retentionDays: undefined,
  };
}

/** `--until`: an ISO time in the future, within the queue's retention (a longer pause would lose events). */
export function parseUntil(value: string | undefined, nowMs: number, retentionDays: number | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const until = new Date(value);
  if (Number.isNaN(until.getTime())) throw new OpsError('usage', `--until is an ISO date or time, not ${value}`);
  if (until.getTime() <= nowMs) throw new OpsError('usage', `--until ${value} is not in the future`);
  if (retentionDays !== undefined && until.getTime() - nowMs > retentionDays * DAY_MS)
    throw new OpsError(
      'usage',
      `--until ${value} is beyond the queue's retention (${retentionDays} days): events queued meanwhile would be lost`,
    );
  return until;
}

/**
 * `npm run pause -- [--stage S] [--until ISO]`: stops the worker's pulling for a planned maintenance;
 * intake keeps accepting and the queue keeps what comes in. `npm run resume -- [--stage S]`: starts it
 * again (the recovery probe also does at `--until`, once the service answers); the backlog drains at
 * the rate budget. Last line: `pulling: paused since <JST>[ until <JST>]` / `pulling: running` (times as formatJst prints them).
 */
export async function pullingCommand(
  command: 'pause' | 'resume',
  target: PullingTarget,
  until: Date | undefined,
  print: (line: string) => void,
  now: () => number = Date.now,
): Promise<number> {
  if (command === 'pause') {
    const pause = await pausePulling({ ...target, now }, until);
    const keeps = target.retentionDays === undefined ? '' : `; the queue keeps messages ${target.retentionDays} days`;
    print(`intake keeps accepting; events wait in the queue${keeps}`);
    print(`pulling: paused since ${formatJst(pause.since)}${pause.until ? ` until ${formatJst(pause.until)}` : ''}`);
    return 0;
  }
  const before = await pullingStatus(target);
  await resumePulling(target);
  if (before.state === 'paused')
    print(`resumed: paused since ${before.planned ? formatJst(before.planned.since) : '(an outage, not planned)'}`);
  print('pulling: running');
  return 0;
}
