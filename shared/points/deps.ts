import type { ProcessingSettings } from '../config/index.js';
import type { Clock, Ledger } from '../ledger/index.js';
import type { OpenApiClient } from '../openapi/index.js';
import type { SmaregiClient } from '../sources/smaregi/index.js';
import type { SquareOrdersClient } from '../sources/square/index.js';

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
  'refund:granted',
  'refund:applied',
  'refund:recorded',
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
  /** Square's Orders API for a source whose purchases earn on their order's subtotal without tax. */
  squareOrders?: (source: string) => Pick<SquareOrdersClient, 'retrieveOrder'> | undefined;
  /** Smaregi's Platform API for a source whose webhooks name transactions only (the worker reads their state). */
  smaregi?: (source: string) => (Pick<SmaregiClient, 'getTransaction'> & Partial<Pick<SmaregiClient, 'setCustomerPoint'>>) | undefined;
  /** Called between protocol steps; production leaves it undefined. A throw here acts as a crash. */
  checkpoint?: Checkpoint;
}
