import type { Disturbance } from './disturbance.js';
import type { EmulatorAdmin, FaultSpec } from './emulator-admin.js';
import type { Random } from './prng.js';
import type { SimClock } from './sim-clock.js';

/**
 * The harsher world (issue 50): requests the membership service applies after the client gave up (the
 * emulator's `late_commit`: answered at once by a reset, an HTML 500/502/504 or no answer at all, run
 * `commit_after_ms` of REAL time after arrival) and a point history that lags (`history_lag_ms`, real
 * time too), on a run whose clock is SIMULATED (sim-clock.ts: real speed while anything works, jumps
 * when nothing does).
 *
 * The mapping. Between jumps simulated time runs at real speed, so a real delay D is at least D
 * simulated, and with jumps unbounded: unguarded, a 2-s late commit would often land minutes of
 * simulated time later, past the in-doubt horizon, and "inside" would mean nothing. So while late
 * commits or lag may be in flight, the run caps the clock (sim-clock.ts `setJumpLimit`): in any window
 * of WINDOW_MS real time (the longest inside delay plus the longest lag) simulated time advances by at
 * most the horizon less SAFETY_MS. A request that arrives at simulated s is applied at most
 * INSIDE_MAX_MS real later and visible in the history LAG_MAX_MS after that, so before s + horizon −
 * SAFETY_MS: the protocol (nothing sent again before the horizon, then a search) must see it. While
 * the cap holds, 1 real second maps to at most (horizon − SAFETY_MS) / WINDOW_MS simulated seconds;
 * an inside commit's simulated delay lies between D and the horizon, whatever the run is doing. It
 * holds only while such a request may be in flight (see `capped`), so waiting stretches still jump.
 *
 * A few late commits (BEYOND_SHARE) are drawn far beyond, deliberately: the service applies them the
 * horizon plus BEYOND_EXTRA_MIN_MS..BEYOND_EXTRA_MAX_MS of REAL time after arrival, so at least that
 * much simulated time later (simulated time never runs slower than real): past the horizon whatever
 * the clock does. The protocol may then have searched, found nothing and sent again: a doubled entry
 * the final audit must reverse. They are drawn only in the first BEYOND_UNTIL_SHARE of the deliveries,
 * so they land while the run goes on rather than in a wait at its end (a draw later is made inside).
 * The run measures each one's simulated delay when it lands (`simAt`), and fails when more entries
 * were doubled than late commits drawn beyond: only these may double.
 */

/** The routes whose operations move points (calculation and grant): the only ones a late commit can double. */
export const LATE_COMMIT_ROUTE_NAMES = ['points calculation', 'points grant'] as const;
/** Their keys in the emulator's stats (faults.ts WORKER_ROUTES). */
const POINTS_STATS = ['POST /api/ext/users/{id}/points/calculation', 'POST /api/ext/users/{id}/points'] as const;
export const LATE_COMMIT_ANSWERS = ['reset', 'hold', 'status'] as const;
export const LATE_COMMIT_STATUSES = [500, 502, 504] as const;
export type LateCommitAnswer = (typeof LATE_COMMIT_ANSWERS)[number];

/** Inside the horizon: applied this long (real ms) after arrival. */
export const INSIDE_MIN_MS = 100;
export const INSIDE_MAX_MS = 3000;
/** Far beyond the horizon: applied the horizon plus this long (real ms) after arrival. */
export const BEYOND_EXTRA_MIN_MS = 5000;
export const BEYOND_EXTRA_MAX_MS = 30_000;
/** The share of late commits drawn beyond the horizon: a few. */
export const BEYOND_SHARE = 0.1;
/** Beyond ones are drawn in this first share of the deliveries only (they land within the run). */
export const BEYOND_UNTIL_SHARE = 0.4;
/** The history lag's largest value (real ms), well below the horizon. */
export const LAG_MAX_MS = 2000;
/** How often the lag is drawn anew: at these shares of the deliveries (half the draws are 0). */
export const LAG_POINTS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] as const;
/** The real window of the clock's cap: a request inside the horizon is applied and visible within it. */
export const WINDOW_MS = INSIDE_MAX_MS + LAG_MAX_MS;
/** Simulated ms kept between a guarded commit's visibility and the horizon's end. */
export const SAFETY_MS = 5000;

export interface LateCommitDraw {
  answer: LateCommitAnswer;
  status?: (typeof LATE_COMMIT_STATUSES)[number];
  commitAfterMs: number;
  beyond: boolean;
}

/**
 * One late commit's answer and delay, from the run's seeded stream (the same seed, the same draws):
 * beyond the horizon (`horizonMs`) only where `beyondAllowed`, else inside it.
 */
export function drawLateCommit(random: Random, horizonMs: number, beyondAllowed = true): LateCommitDraw {
  const answer = random.pick(LATE_COMMIT_ANSWERS);
  const status = answer === 'status' ? random.pick(LATE_COMMIT_STATUSES) : undefined;
  const beyond = random.chance(BEYOND_SHARE) && beyondAllowed;
  const inside = random.int(INSIDE_MIN_MS, INSIDE_MAX_MS);
  const extra = random.int(BEYOND_EXTRA_MIN_MS, BEYOND_EXTRA_MAX_MS);
  return { answer, ...(status ? { status } : {}), commitAfterMs: beyond ? horizonMs + extra : inside, beyond };
}

const REASONS: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 504: 'Gateway Time-out' };

/** What a load balancer in front of the service answers: its HTML error page. */
export const htmlErrorPage = (status: number): string =>
  `<html>\r\n<head><title>${status} ${REASONS[status] ?? 'Error'}</title></head>\r\n<body>\r\n<center><h1>${status} ${REASONS[status] ?? 'Error'}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/** The emulator fault for a draw, on one route (a late commit fires once). */
export function lateCommitSpec(route: { method: string; path: string }, draw: LateCommitDraw): FaultSpec {
  return {
    method: route.method,
    path: route.path,
    times: 1,
    fault: 'late_commit',
    answer: draw.answer,
    commit_after_ms: draw.commitAfterMs,
    ...(draw.status ? { status: draw.status, body: htmlErrorPage(draw.status), headers: { 'content-type': 'text/html' } } : {}),
  };
}

/** The history lag at each of LAG_POINTS (real ms; 0 half the time). */
export function drawLagPlan(random: Random): number[] {
  return LAG_POINTS.map(() => (random.chance(0.5) ? 0 : random.int(100, LAG_MAX_MS)));
}

export interface LateCommitReport {
  armed: number;
  byAnswer: Record<string, number>;
  /** Drawn far beyond the horizon (the only ones that may double). */
  drawnBeyond: number;
  /** Seen applied (the route's request count passed the fault), by simulated delay from arrival. */
  landedInside: number;
  landedBeyond: number;
  /** Cleared with the faults before a request met them. */
  neverFired: number;
  /** The largest simulated delay seen of a commit drawn inside, and the smallest of one drawn beyond (s). */
  maxInsideSeconds: number;
  minBeyondSeconds: number | undefined;
  lagChanges: number;
  lagMaxMs: number;
}

interface Tracked {
  draw: LateCommitDraw;
  stat: string;
  /** The route's request count by which it fires (undefined: the count was not known when armed). */
  firesAt: number | undefined;
  /** Real ms: when a poll first saw it fired (its arrival is at or before). */
  arrivedBy?: number;
  landed?: boolean;
}

export interface LateCommitsOptions {
  admin: Pick<EmulatorAdmin, 'patchClient'>;
  clientId: string;
  clock: SimClock;
  /** The in-doubt horizon in force (IN_DOUBT_SECONDS, ms). */
  horizonMs: number;
  random: Random;
  /** The client's request counts per route (the emulator's stats keys). */
  routeRequests: () => Promise<Record<string, number>>;
  /** Draw commits far beyond the horizon too (default true; a short run may leave them out). */
  beyond?: boolean;
  log: (line: string) => void;
}

/** How often the route counts are read while a late commit waits for its request (real ms). */
const POLL_MS = 100;

export type LateCommits = Disturbance & {
  /** Draws a late commit (the fault injector arms it). */
  draw(): LateCommitDraw;
  /** The injector armed it on the route with stats key `stat`, to fire at request count `firesAt`. */
  armed(draw: LateCommitDraw, stat: string, firesAt: number | undefined): void;
  report(): LateCommitReport;
};

const emptyReport = (): LateCommitReport => ({
  armed: 0,
  byAnswer: {},
  drawnBeyond: 0,
  landedInside: 0,
  landedBeyond: 0,
  neverFired: 0,
  maxInsideSeconds: 0,
  minBeyondSeconds: undefined,
  lagChanges: 0,
  lagMaxMs: 0,
});

/** The run report's lines on late commits and the lag. */
function reportLinesOf(r: LateCommitReport): string[] {
  const answers = Object.entries(r.byAnswer)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `  late commits: ${r.armed} armed (${answers || 'none'}), ${r.drawnBeyond} drawn far beyond the horizon; applied ${r.landedInside} inside the horizon (simulated delay up to ${r.maxInsideSeconds.toFixed(1)} s), ${r.landedBeyond} beyond it (drawn beyond: from ${r.minBeyondSeconds === undefined ? '-' : r.minBeyondSeconds.toFixed(1)} s); ${r.neverFired} never met a request`,
    `  history lag: ${r.lagChanges} changes, up to ${r.lagMaxMs} ms (real)`,
  ];
}

export function createLateCommits(o: LateCommitsOptions): LateCommits {
  const drawRandom = o.random.fork('late commit draws');
  const lagPlan = drawLagPlan(o.random.fork('history lag'));
  const tracked: Tracked[] = [];
  const report = emptyReport();
  let lag = 0;
  let lastPoll = 0;
  /** Whether a late commit drawn now may be beyond the horizon (the deliveries' first share). */
  let beyondAllowed = o.beyond !== false;
  /** Real ms of the last poll that saw a new request on a route that moves points (it may be applied late or read late). */
  let lastPointsRequest = Date.now();
  let pointsRequests: number | undefined;
  /** Set after the drain, once everything has landed: no cap from then on. */
  let lifted = false;

  /**
   * The cap: simulated time advances by at most the horizon less SAFETY_MS in any WINDOW_MS of real
   * time, while a request that moves points may still be applied or hidden by the lag: one seen within
   * the last WINDOW_MS, or a late commit seen arriving and not yet applied. Otherwise (the queue only
   * waiting, an outage) the clock jumps freely: the tick reads the counts right before each jump.
   */
  const capped = () =>
    !lifted && (Date.now() - lastPointsRequest <= WINDOW_MS || tracked.some((t) => t.arrivedBy !== undefined && !t.landed));
  o.clock.setJumpLimit(() => (capped() ? o.clock.simAt(Date.now() - WINDOW_MS) + o.horizonMs - SAFETY_MS : undefined));

  async function setLag(ms: number): Promise<void> {
    if (ms === lag) return;
    await o.admin.patchClient(o.clientId, { history_lag_ms: ms });
    lag = ms;
    report.lagChanges += 1;
    report.lagMaxMs = Math.max(report.lagMaxMs, ms);
  }

  /**
   * Reads the route counts (every tick while the cap would lift, else every POLL_MS): a request that
   * moves points keeps the cap; a late commit whose request came is timed, one applied by now measured.
   */
  async function poll(force = false): Promise<void> {
    const now = Date.now();
    const holding = now - lastPointsRequest < WINDOW_MS - POLL_MS;
    if (!force && holding && now - lastPoll < POLL_MS) return;
    lastPoll = now;
    const counts = await o.routeRequests();
    const points = POINTS_STATS.reduce((n, stat) => n + (counts[stat] ?? 0), 0);
    if (points !== pointsRequests) {
      pointsRequests = points;
      lastPointsRequest = now;
    }
    for (const t of tracked) {
      if (t.landed) continue;
      if (t.arrivedBy === undefined && t.firesAt !== undefined && (counts[t.stat] ?? 0) >= t.firesAt) t.arrivedBy = now;
      if (t.arrivedBy !== undefined && now >= t.arrivedBy + t.draw.commitAfterMs) measure(t, t.arrivedBy);
    }
  }

  /** Its simulated delay: from arrival (at the latest when a poll saw it) to `commitAfterMs` real later. */
  function measure(t: Tracked, arrivedBy: number): void {
    t.landed = true;
    const seconds = (o.clock.simAt(arrivedBy + t.draw.commitAfterMs) - o.clock.simAt(arrivedBy)) / 1000;
    if (seconds * 1000 >= o.horizonMs) {
      report.landedBeyond += 1;
    } else report.landedInside += 1;
    if (t.draw.beyond) report.minBeyondSeconds = Math.min(report.minBeyondSeconds ?? Number.POSITIVE_INFINITY, seconds);
    else report.maxInsideSeconds = Math.max(report.maxInsideSeconds, seconds);
  }

  return {
    name: 'late commits',
    draw: () => drawLateCommit(drawRandom, o.horizonMs, beyondAllowed),
    armed(draw, stat, firesAt) {
      tracked.push({ draw, stat, firesAt });
      report.armed += 1;
      const answer = draw.answer === 'status' ? `status ${draw.status}` : draw.answer;
      report.byAnswer[answer] = (report.byAnswer[answer] ?? 0) + 1;
      if (draw.beyond) report.drawnBeyond += 1;
    },
    async beforeDelivery(position, total) {
      beyondAllowed = o.beyond !== false && position < total * BEYOND_UNTIL_SHARE;
      // Before the other disturbances' steps (the Smaregi reconcile's jump): the last position's presses are seen.
      await poll(true);
      const at = LAG_POINTS.findIndex((share) => Math.floor(total * share) === position);
      if (at >= 0) await setLag(lagPlan[at] as number);
    },
    tick: () => poll(),
    jumpLimit: () => undefined,
    holdsClock: () => false,
    /**
     * The faults are cleared: the lag goes (the final audit and check read the whole history), and
     * the run waits (real time) until every late commit whose request came has been applied, so the
     * final audit sees what the service will ever apply. Then the cap is lifted.
     */
    async afterDrain() {
      await setLag(0);
      await poll(true);
      for (const t of tracked) if (t.arrivedBy === undefined) t.landed = true;
      report.neverFired = tracked.filter((t) => t.arrivedBy === undefined).length;
      const lastLanding = Math.max(
        Date.now(),
        ...tracked.flatMap((t) => (t.arrivedBy === undefined ? [] : [t.arrivedBy + t.draw.commitAfterMs])),
      );
      if (lastLanding > Date.now()) o.log(`chaos: waiting ${((lastLanding - Date.now()) / 1000).toFixed(1)} s for late commits to land`);
      while (Date.now() < lastLanding + POLL_MS) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await poll(true);
      }
      await poll(true);
      lifted = true;
    },
    reportLines: () => reportLinesOf(report),
    report: () => ({ ...report }),
  };
}
