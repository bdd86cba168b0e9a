import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readTableDate } from '../shared/ledger/index.js';
import { OpsError } from './errors.js';

/**
 * A command that runs the points protocol on this machine (claims, leases, in-doubt horizons) judges
 * every lease by this machine's clock: one 20 s fast takes over a lease the worker still holds. Such a
 * command first reads a server's clock (the `Date` header of an answer from what it talks to anyway)
 * and refuses to run when this machine's clock is off by more than a second.
 */

/** More than this off the server's clock, a command must not judge leases (the worker's clocks are NTP-synced). */
export const MAX_CLOCK_SKEW_MS = 1000;

/** One reading of a server's clock, timed by this machine's clock. */
export interface ServerDateReading {
  /** What answered, as the error names it. */
  server: string;
  /** This machine's clock just before the request went out, and just after its answer came. */
  sentAt: number;
  receivedAt: number;
  /** The answer's `Date` header, or undefined when it had none. */
  date: string | undefined;
}

/** Reads a server's `Date`, timing the request with `clock`. */
export type ServerClock = (clock: () => number) => Promise<ServerDateReading>;

export interface ClockSkew {
  server: string;
  /** How far this machine's clock is ahead of the server's (negative: behind), in ms. */
  skewMs: number;
  /** How far the true skew may lie from skewMs: the Date header counts whole seconds, plus half the round trip. */
  uncertaintyMs: number;
}

/**
 * The skew one reading shows. The server stamped its answer at some moment between sentAt and
 * receivedAt on our clock, when its own clock read something in [date, date + 1 s) (RFC 9110's
 * IMF-fixdate has no fractions): the estimate is the middle of both ranges.
 */
export function clockSkew(reading: ServerDateReading): ClockSkew {
  const date = reading.date === undefined ? Number.NaN : Date.parse(reading.date);
  if (Number.isNaN(date))
    throw new OpsError(
      'clock_skew',
      `${reading.server} answered without a readable Date header (${reading.date ?? 'none'}), so this machine's clock cannot be checked; nothing was changed`,
    );
  return {
    server: reading.server,
    skewMs: Math.round((reading.sentAt + reading.receivedAt) / 2 - (date + 500)),
    uncertaintyMs: Math.round((reading.receivedAt - reading.sentAt) / 2 + 500),
  };
}

const seconds = (ms: number) => `${(Math.abs(ms) / 1000).toFixed(1)} s`;

/**
 * Reads the server's clock and returns the skew, or throws an OpsError of kind `clock_skew` naming the
 * measured skew and what to do when it is more than `limitMs`. Call it before the command changes anything.
 */
export async function refuseSkewedClock(
  server: ServerClock,
  clock: () => number = Date.now,
  limitMs = MAX_CLOCK_SKEW_MS,
): Promise<ClockSkew> {
  let skew = clockSkew(await server(clock));
  // A second reading reuses the first's connection (no TLS handshake inside its round trip): the tighter counts.
  const again = clockSkew(await server(clock));
  if (again.uncertaintyMs < skew.uncertaintyMs) skew = again;
  if (Math.abs(skew.skewMs) <= limitMs) return skew;
  throw new OpsError(
    'clock_skew',
    `this machine's clock is ${seconds(skew.skewMs)} ${skew.skewMs > 0 ? 'ahead of' : 'behind'} ${skew.server} ` +
      `(its Date header, ±${seconds(skew.uncertaintyMs)}); this command judges the worker's leases by it, so it refuses ` +
      `to run with a clock more than ${seconds(limitMs)} off. Nothing was changed. Sync the clock ` +
      '(Linux: sudo chronyc makestep, or sudo timedatectl set-ntp true; macOS: sudo sntp -sS time.apple.com) and run it again.',
  );
}

/** Any HTTP server's clock: a GET of `url` (the local stack's intake, a test's server). */
export function httpServerClock(url: string): ServerClock {
  return async (clock) => {
    const sentAt = clock();
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const receivedAt = clock();
    await res.body?.cancel();
    return { server: new URL(url).host, sentAt, receivedAt, date: res.headers.get('date') ?? undefined };
  };
}

/** The clock of the DynamoDB endpoint holding the ledger (shared/ledger: readTableDate). */
export function dynamoServerClock(client: Pick<DynamoDBDocumentClient, 'send'>, tableName: string): ServerClock {
  return async (clock) => {
    const reading = await readTableDate(client, tableName, clock);
    if (reading === undefined) throw new OpsError('clock_skew', `DynamoDB (table ${tableName}) gave no answer to read its clock from`);
    return { server: `DynamoDB (table ${tableName})`, ...reading };
  };
}
