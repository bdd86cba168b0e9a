import type { EmulatorAdmin, FaultKind, FaultSpec } from './emulator-admin.js';
import type { Random } from './prng.js';

/**
 * Fault injection: emulator faults on every route the worker uses, armed while events flow, and
 * worker crashes thrown from the processor's checkpoint hook between protocol steps.
 */

/** The Open API routes the worker calls, as the emulator's fault selectors. */
export const WORKER_ROUTES = [
  { name: 'token', method: 'POST', path: '^/api/ext/token$', weight: 1 },
  { name: 'member by external id', method: 'GET', path: '^/api/ext/users/external_id/[^/]+/[^/]+$', weight: 3 },
  { name: 'points calculation', method: 'POST', path: '^/api/ext/users/[^/]+/points/calculation$', weight: 4 },
  { name: 'points grant', method: 'POST', path: '^/api/ext/users/[^/]+/points$', weight: 3 },
  { name: 'point history', method: 'GET', path: '^/api/ext/users/[^/]+/points$', weight: 2 },
] as const;
export type RouteName = (typeof WORKER_ROUTES)[number]['name'];

export const FAULT_KINDS: readonly FaultKind[] = ['error_500', 'reset_before', 'reset_after_commit', 'delay'];

export interface FaultTally {
  emulator: number;
  byKind: Record<FaultKind, number>;
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
}

export function emptyTally(): FaultTally {
  return {
    emulator: 0,
    byKind: { error_500: 0, reset_before: 0, reset_after_commit: 0, delay: 0 },
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

export interface FaultOptions {
  /** Probability of arming an emulator fault before each delivery step. */
  faultRate: number;
  /** Probability that a checkpoint call crashes the worker. */
  crashRate: number;
  /** The client's response timeout; a `delay` fault holds the answer longer than this. */
  clientTimeoutMs: number;
  /**
   * Open API requests made so far (the emulator's count). A fault fires on the next matching request,
   * however late it comes: while the worker makes none (its breaker open), faults armed at each delivery
   * would pile up and each probe would meet one, holding the breaker open for minutes on faults of no
   * moment. So a fault drawn then is owed, and armed once the worker has called again (at most two at a
   * time): faults fire on work done now, as the senders keep pace with the worker for, and as many are
   * armed as drawn (the same density).
   */
  requestsMade?: () => Promise<number>;
}

export function createFaultInjector(random: Random, admin: EmulatorAdmin, options: FaultOptions) {
  const tally = emptyTally();
  const crashRandom = random.fork('crashes');
  const faultRandom = random.fork('faults');
  const totalWeight = WORKER_ROUTES.reduce((sum, r) => sum + r.weight, 0);

  function pickRoute(): (typeof WORKER_ROUTES)[number] {
    let at = faultRandom.next() * totalWeight;
    for (const route of WORKER_ROUTES) {
      at -= route.weight;
      if (at < 0) return route;
    }
    return WORKER_ROUTES[WORKER_ROUTES.length - 1] as (typeof WORKER_ROUTES)[number];
  }

  async function arm(route: (typeof WORKER_ROUTES)[number], fault: FaultKind, times: number): Promise<void> {
    const spec: FaultSpec = { method: route.method, path: route.path, fault, times };
    if (fault === 'delay') spec.delay_ms = options.clientTimeoutMs + 250;
    await admin.addFault(spec);
    tally.emulator += times;
    tally.byKind[fault] += times;
    tally.byRoute[route.name] = (tally.byRoute[route.name] ?? 0) + times;
  }

  let calm = false;
  let owed = 0;
  let requestsAtLastArm: number | undefined;
  /** Whether the worker has called the Open API since the last fault was armed (always, without the count). */
  async function workedSinceLastArm(): Promise<boolean> {
    if (!options.requestsMade) return true;
    const made = await options.requestsMade();
    if (made === requestsAtLastArm) return false;
    requestsAtLastArm = made;
    return true;
  }
  return {
    tally,
    /** Stops injecting (the operator's fix): no new faults, no more crashes. */
    calm(): void {
      calm = true;
      if (owed > 0) tally.neverArmed = owed;
    },
    /** A fault on the token route, armed before the worker's first call. */
    async armTokenFault(): Promise<void> {
      await arm(WORKER_ROUTES[0], faultRandom.pick(FAULT_KINDS), 1);
    },
    /** Called before each delivery step: sometimes arms one fault on a random route. */
    async maybeArm(): Promise<void> {
      if (calm) return;
      if (faultRandom.chance(options.faultRate)) owed += 1;
      if (owed === 0) return;
      if (!(await workedSinceLastArm())) {
        tally.armedLater = (tally.armedLater ?? 0) + 1;
        return;
      }
      for (let n = Math.min(owed, 2); n > 0; n -= 1) {
        owed -= 1;
        await arm(pickRoute(), faultRandom.pick(FAULT_KINDS), faultRandom.int(1, 2));
      }
    },
    /**
     * Expires every token (the emulator's clock jumps a day) with a fault armed on the token route,
     * so the client's renewal path meets a failure too.
     */
    async expireTokens(): Promise<void> {
      const tokenRoute = WORKER_ROUTES[0];
      await arm(tokenRoute, faultRandom.pick(FAULT_KINDS), 1);
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
