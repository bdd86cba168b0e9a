import type { ProcessingSettings } from '../config/index.js';
import type { Clock, Ledger } from '../ledger/index.js';
import type { OpenApiClient } from '../openapi/index.js';

/** The Open API calls processing makes (a narrow view, so an instrumented wrapper is easy). */
export type PointsApi = Pick<
  OpenApiClient,
  'getMemberByExternalId' | 'getMemberByUniqueId' | 'getMember' | 'listPoints' | 'grantPoints' | 'calculatePoints'
>;

/** The lines of the protocol between which a crash is interesting (the chaos tests throw from here). */
export const CHECKPOINTS = [
  'purchase:claimed',
  'purchase:not-found',
  'purchase:customer',
  'purchase:granted',
  'purchase:recorded',
  'refund:claimed',
  'refund:order-claimed',
  'refund:sibling-wait',
  'refund:order-given-back',
  'refund:granted',
  'refund:applied',
  'refund:recorded',
  'bonus:claimed',
  'bonus:granted',
  'bonus:taken-back',
] as const;
export type CheckpointStep = (typeof CHECKPOINTS)[number];
export type Checkpoint = (step: CheckpointStep) => void | Promise<void>;

export interface ProcessorLogger {
  warn(message: string, ...extra: unknown[]): void;
}

export interface ProcessorDeps {
  ledger: Ledger;
  openapi: PointsApi;
  settings: ProcessingSettings;
  clock: Clock;
  logger?: ProcessorLogger;
  /** Called between protocol steps; production leaves it undefined. A throw here acts as a crash. */
  checkpoint?: Checkpoint;
}
