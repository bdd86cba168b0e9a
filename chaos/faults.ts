import type { EmulatorAdmin, FaultKind, FaultSpec } from './emulator-admin.js';
import { LATE_COMMIT_ROUTE_NAMES, type LateCommits, lateCommitSpec } from './late-commits.js';
import type { Random } from './prng.js';

/**
 * Fault injection: emulator faults on every route the worker uses, armed while events flow, and
 * worker crashes thrown from the processor's checkpoint hook between protocol steps.
 */

/** The Open API routes the worker calls, as the emulator's fault selectors. */
/** `stat`: the route's key in the emulator's stats (its requests so far). */
export const WORKER_ROUTES = [
  { name: 'token', method: 'POST', path: '^/api/ext/token$', stat: 'POST /api/ext/token', weight: 1 },
  {
    name: 'member by external id',
    method: 'GET',
    path: '^/api/ext/users/external_id/[^/]+/[^/]+$',
    stat: 'GET /api/ext/users/external_id/{external_key}/{external_id}',
    weight: 3,
  },
  {
    name: 'points calculation',
    method: 'POST',
    path: '^/api/ext/users/[^/]+/points/calculation$',
    stat: 'POST /api/ext/users/{id}/points/calculation',
    weight: 4,
  },
  { name: 'points grant', method: 'POST', path: '^/api/ext/users/[^/]+/points$', stat: 'POST /api/ext/users/{id}/points', weight: 3 },
  { name: 'point history', method: 'GET', path: '^/api/ext/users/[^/]+/points$', stat: 'GET /api/ext/users/{id}/points', weight: 2 },
] as const;
type WorkerRoute = (typeof WORKER_ROUTES)[number];
export type RouteName = (typeof WORKER_ROUTES)[number]['name'];

export const FAULT_KINDS: readonly FaultKind[] = ['error_500', 'reset_before', 'reset_after_commit', 'delay'];
/** A kind drawn beside FAULT_KINDS on the routes that move points, when the run has late commits (late-commits.ts). */
export type DrawnKind = FaultKind | 'late_commit';
const movesPoints = (route: WorkerRoute): boolean => (LATE_COMMIT_ROUTE_NAMES as readonly string[]).includes(route.name);

export interface FaultTally {
  emulator: number;
  byKind: Record<DrawnKind, number>;
  byRoute: Record<string, number>;
  crashes: number;
  crashesByStep: Record<string, number>;
  /** Steps the processor reported through the checkpoint hook, with how often each was reached. */
  stepsSeen: Record<string, number>;
  tokenExpiries: number;
  /** Times the worker's clock was moved past every lease (crashed attempts' leases then run out). */
  leaseExpiries: number;
  /** Queued messages also delivered at once to a second worker container (concurrent duplicates). */
  directDuplicates: number;
  /** Open API outages (`--outage`): every route failing for a while. */
  outages: number;
  /** Faults drawn while the worker had made no Open API call since the last was armed: armed later, once it called. */
  armedLater?: number;
  /** Of those, still owed when the faults stopped (never armed). */
  neverArmed?: number;
  /** Faults drawn for a route whose last armed fault had not fired yet: waited for it (one pending per route). */
  waitedForRoute?: number;
  /** Of those, still waiting MOVE_AFTER_DELIVERIES deliveries later: armed on a route with none pending instead. */
  movedToFreeRoute?: number;
}

export function emptyTally(): FaultTally {
  return {
    emulator: 0,
    byKind: { error_500: 0, reset_before: 0, reset_after_commit: 0, delay: 0, late_commit: 0 },
    byRoute: {},
    crashes: 0,
    crashesByStep: {},
    stepsSeen: {},
    tokenExpiries: 0,
    leaseExpiries: 0,
    directDuplicates: 0,
    outages: 0,
  };
}

/** Thrown from the checkpoint hook: the worker "dies" at that line. */
export class ChaosCrash extends Error {
  readonly kind = 'chaos_crash' as const;
  constructor(readonly step: string) {
    super(`chaos: worker crash injected at step "${step}"`);
    this.name = 'ChaosCrash';
  }
}

/**
 * How long a fault waits for its route's last one to fire before it goes to a free route: about the
 * deliveries between two quiet points of the senders (deliver.ts), long for a busy route (its faults
 * fire within a delivery or two), short against the token route's hour-long cached tokens.
 */
export const MOVE_AFTER_DELIVERIES = 25;

export interface FaultOptions {
  /** Probability of arming an emulator fault before each delivery step. */
  faultRate: number;
  /** Probability that a checkpoint call crashes the worker. */
  crashRate: number;
  /** The client's response timeout; a `delay` fault holds the answer longer than this. */
  clientTimeoutMs: number;
  /**
   * Open API requests made so far, per route (the emulator's stats keys). A fault fires on the next
   * matching request, however late it comes: while the worker makes none (its breaker open), faults armed
   * at each delivery would pile up and each probe would meet one, holding the breaker open for minutes on
   * faults of no moment. So a fault drawn then is owed, and armed once the worker has called again (at
   * most two at a time). The same holds per route: the token route is called only when a token runs
   * out, so faults drawn for it meanwhile would pile up and fire together at the next renewal, an outage
   * of the token endpoint of a dozen failures in a row, which the run never drew. So a route gets a new
   * fault only once its last one has fired; one drawn before waits for that. Faults fire on work done
   * now, as the senders keep pace with the worker for, and as many are armed as drawn, with the routes,
   * kinds and counts drawn (the same density).
   */
  routeRequests?: () => Promise<Record<string, number>>;
  /**
   * Late commits (late-commits.ts): on the routes that move points, `late_commit` is drawn as one more
   * kind beside FAULT_KINDS, so the density of faults stays what it was; the draw of its answer and
   * delay comes from the late commits' own stream, and they are told what was armed where.
   */
  lateCommits?: Pick<LateCommits, 'draw' | 'armed'>;
}

/** A route drawn by the weights, among `among` (default: every worker route). */
function pickRoute(random: Random, among: readonly WorkerRoute[] = WORKER_ROUTES): WorkerRoute {
  let at = random.next() * among.reduce((sum, r) => sum + r.weight, 0);
  for (const route of among) {
    at -= route.weight;
    if (at < 0) return route;
  }
  return among[among.length - 1] as WorkerRoute;
}

/** An emulator fault of a kind the runs draw (a delay outlasts the client's timeout). */
function faultSpecOf(route: WorkerRoute, fault: FaultKind, times: number, clientTimeoutMs: number): FaultSpec {
  const spec: FaultSpec = { method: route.method, path: route.path, fault, times };
  if (fault === 'delay') spec.delay_ms = clientTimeoutMs + 250;
  return spec;
}

const totalOf = (counts: Record<string, number>) => Object.values(counts).reduce((n, c) => n + c, 0);

export function createFaultInjector(random: Random, admin: EmulatorAdmin, options: FaultOptions) {
  const tally = emptyTally();
  const crashRandom = random.fork('crashes');
  const faultRandom = random.fork('faults');

  /** Per route, its request count by which every fault armed on it will have fired. */
  const firesBy = new Map<string, number>();
  async function arm(route: WorkerRoute, fault: DrawnKind, drawnTimes: number, counts?: Record<string, number>): Promise<void> {
    const late = fault === 'late_commit' ? options.lateCommits?.draw() : undefined;
    // A late commit fires once: its request is the one applied later.
    const times = late ? 1 : drawnTimes;
    await admin.addFault(late ? lateCommitSpec(route, late) : faultSpecOf(route, fault as FaultKind, times, options.clientTimeoutMs));
    tally.emulator += times;
    tally.byKind[fault] += times;
    tally.byRoute[route.name] = (tally.byRoute[route.name] ?? 0) + times;
    if (counts) firesBy.set(route.stat, Math.max(firesBy.get(route.stat) ?? 0, counts[route.stat] ?? 0) + times);
    if (late) options.lateCommits?.armed(late, route.stat, counts ? firesBy.get(route.stat) : undefined);
  }
  /** The kinds a route may draw: late commits only where points move. */
  const kindsOf = (route: WorkerRoute): readonly DrawnKind[] =>
    options.lateCommits && movesPoints(route) ? [...FAULT_KINDS, 'late_commit'] : FAULT_KINDS;
  const routeFree = (route: WorkerRoute, counts: Record<string, number> | undefined) =>
    counts === undefined || (counts[route.stat] ?? 0) >= (firesBy.get(route.stat) ?? 0);
  /** A route with no fault pending (one that moves points for a late commit), drawn by the weights; none when every route has one. */
  function freeRoute(counts: Record<string, number> | undefined, kind: DrawnKind): WorkerRoute | undefined {
    const free = WORKER_ROUTES.filter((r) => routeFree(r, counts) && (kind !== 'late_commit' || movesPoints(r)));
    return free.length > 0 ? pickRoute(faultRandom, free) : undefined;
  }

  let calm = false;
  let owed = 0;
  /** Drawn for a route whose last fault has not fired yet, in the order drawn (`drawnAt`: deliveries then). */
  const waiting: { route: WorkerRoute; kind: DrawnKind; times: number; drawnAt: number }[] = [];
  let deliveries = 0;
  let requestsAtLastArm: number | undefined;
  /** Whether the worker has called the Open API since the last fault was armed (always, without the count). */
  function workedSinceLastArm(counts: Record<string, number> | undefined): boolean {
    if (!counts) return true;
    const made = totalOf(counts);
    if (made === requestsAtLastArm) return false;
    requestsAtLastArm = made;
    return true;
  }
  /** Arms at most `budget` faults: first those that waited for their route, then newly owed ones. */
  async function armDue(budget: number, counts: Record<string, number> | undefined): Promise<void> {
    for (let i = 0; i < waiting.length && budget > 0; ) {
      const w = waiting[i] as (typeof waiting)[number];
      const target = routeFree(w.route, counts)
        ? w.route
        : deliveries - w.drawnAt >= MOVE_AFTER_DELIVERIES
          ? freeRoute(counts, w.kind)
          : undefined;
      if (!target) {
        i += 1;
        continue;
      }
      waiting.splice(i, 1);
      // Its route still not called (a token cached for long): the fault went to a free route, by the same weights.
      if (target !== w.route) tally.movedToFreeRoute = (tally.movedToFreeRoute ?? 0) + 1;
      await arm(target, w.kind, w.times, counts);
      budget -= 1;
    }
    for (; budget > 0 && owed > 0; budget -= 1) {
      owed -= 1;
      const route = pickRoute(faultRandom);
      const drawn = { route, kind: faultRandom.pick(kindsOf(route)), times: faultRandom.int(1, 2), drawnAt: deliveries };
      if (routeFree(drawn.route, counts)) await arm(drawn.route, drawn.kind, drawn.times, counts);
      else {
        waiting.push(drawn);
        tally.waitedForRoute = (tally.waitedForRoute ?? 0) + 1;
      }
    }
  }
  return {
    tally,
    /** Stops injecting (the operator's fix): no new faults, no more crashes. */
    calm(): void {
      calm = true;
      if (owed + waiting.length > 0) tally.neverArmed = owed + waiting.length;
    },
    /** A fault on the token route, armed before the worker's first call. */
    async armTokenFault(): Promise<void> {
      await arm(WORKER_ROUTES[0], faultRandom.pick(FAULT_KINDS), 1, await options.routeRequests?.());
    },
    /** Called before each delivery step: sometimes arms one fault on a random route. */
    async maybeArm(): Promise<void> {
      if (calm) return;
      deliveries += 1;
      if (faultRandom.chance(options.faultRate)) owed += 1;
      if (owed === 0 && waiting.length === 0) return;
      const counts = await options.routeRequests?.();
      if (!workedSinceLastArm(counts)) {
        if (owed > 0) tally.armedLater = (tally.armedLater ?? 0) + 1;
        return;
      }
      await armDue(2, counts);
    },
    /**
     * Expires every token (the emulator's clock jumps a day) with a fault armed on the token route,
     * so the client's renewal path meets a failure too.
     */
    async expireTokens(): Promise<void> {
      const tokenRoute = WORKER_ROUTES[0];
      await arm(tokenRoute, faultRandom.pick(FAULT_KINDS), 1, await options.routeRequests?.());
      await admin.advanceClock(86_400 + 60);
      tally.tokenExpiries += 1;
    },
    /** The processor's checkpoint hook. */
    checkpoint(step: string): void {
      tally.stepsSeen[step] = (tally.stepsSeen[step] ?? 0) + 1;
      if (!calm && crashRandom.chance(options.crashRate)) {
        tally.crashes += 1;
        tally.crashesByStep[step] = (tally.crashesByStep[step] ?? 0) + 1;
        throw new ChaosCrash(step);
      }
    },
  };
}
export type FaultInjector = ReturnType<typeof createFaultInjector>;
