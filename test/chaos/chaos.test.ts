import { beforeAll, describe, expect, it } from 'vitest';
import { auditLedger, reversalDepsOf, scanLedger, type AuditResult } from '../../shared/audit/index.js';
import { processingSettingsFromEnv } from '../../shared/config/index.js';
import { createOpenApiClient, staticCredentials } from '../../shared/openapi/index.js';
import { FAULT_KINDS, WORKER_ROUTES } from '../../chaos/faults.js';
import { formatReport, type ChaosResult } from '../../chaos/report.js';
import { CHAOS_CLIENT, runChaos } from '../../chaos/runner.js';

/**
 * The short chaos run of `npm test`: ~100 seeded events through the real receiver, local FIFO queue and
 * worker against the emulator and dynalite, with `npm start`'s own timing defaults, faults on every
 * route, late commits inside the in-doubt horizon and a lagging history, worker crashes between
 * protocol steps, lease expiries and a 30-minute (simulated) outage of the whole Open API, and no
 * redrive. Late commits far beyond the horizon are left out here: each is applied more than the horizon
 * (120 s) of real time later, so one would double this run's wall time; the sweeps have them. The long
 * runs are `npm run chaos -- --events 2000 --seed S` and `npm run chaos -- --outage 7200`.
 */
describe('a short seeded chaos run', () => {
  let result: ChaosResult;
  let audit: AuditResult | undefined;

  beforeAll(async () => {
    result = await runChaos({
      events: 100,
      seed: 20261122,
      drainTimeoutMs: 90_000,
      outageSeconds: 1800,
      lateCommitsBeyond: false,
      // A second `npm run audit` right after the run's own final audit, on what that one left behind.
      afterRun: async (stack) => {
        const api = createOpenApiClient({ credentials: staticCredentials({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }) });
        try {
          const records = await scanLedger(stack.ledgerTable.documentClient, stack.ledgerTable.tableName);
          const { documentClient: client, tableName } = stack.ledgerTable;
          const processing = processingSettingsFromEnv(stack.handlerEnv);
          const reversal = reversalDepsOf({ client, tableName, clock: Date.now, openapi: api, processing });
          audit = await auditLedger(records, { ledger: stack.ledger, openapi: api, reversal });
        } finally {
          await api.close();
        }
      },
    });
    // The whole report only when something is wrong: it names the orders and shows their evidence.
    if (result.mismatches.length > 0 || result.unfinished.length > 0) console.log(formatReport(result).join('\n'));
  }, 150_000);

  it('shows every customer the balance and history the independent model expects', () => {
    expect(result.mismatches).toEqual([]);
  });

  it('links members and enrols shop customers mid-run, with faults on those calls, their earlier orders having ended customer_not_found', () => {
    expect(result.links?.linked).toBeGreaterThan(0);
    expect(result.links?.enrolled).toBeGreaterThan(0);
    expect(result.links?.earlierNotFound).toBeGreaterThan(0);
    expect(result.links?.failures).toEqual([]);
  });

  it('leaves no event without a final outcome in the ledger', () => {
    expect(result.unfinished).toEqual([]);
  });

  // How many late commits a 100-event run arms depends on how its deliveries meet the routes in real time
  // (0 to a few here); the dense runs draw 40-55 each (chaos/README.md) and the hazard tests arm them directly.
  it('counts every late commit it armed among the faults, and draws a lagging history beside them', () => {
    expect(result.faults.byKind.late_commit ?? 0).toBe(result.lateCommits?.armed ?? -1);
    expect(result.lateCommits?.lagChanges).toBeGreaterThan(0);
  });

  it('ran the final audit before its check, and had nothing doubled to reverse', () => {
    expect(result.audit?.summary).toMatch(/^audit: orders=\d+ refunds=\d+ drift=0 duplicates=0 reversed=0$/);
    expect(result.reversed).toBe(0);
  });

  it('leaves books a second audit finds balanced: every order and refund, no drift', () => {
    expect(audit?.findings).toEqual([]);
    expect(audit?.orders).toBeGreaterThan(0);
    expect(audit?.refunds).toBeGreaterThan(0);
  });

  it('dead-letters no event, outage included, without any redrive', () => {
    expect(result.deadLettered).toBe(0);
    expect(result.queue.redriven).toBe(0);
    expect(result.faults.outages).toBe(1);
  });

  it('defers waiting events instead of failing them', () => {
    expect(result.queue.deferrals).toBeGreaterThan(0);
  });

  it('prints the verdict line with the counts, the outage recovery, the latency figures, the late commits and the reversals', () => {
    expect(formatReport(result).at(-1)).toMatch(
      /^chaos: events=100 faults=\d+ mismatches=0 unfinished=0 dead_lettered=0 latency_p99_ours_s=[\d.]+ backlog=\d+ drained_s=\d+ latency_p99_s=[\d.]+ latency_max_s=[\d.]+ late_commits=\d+ reversed=0$/,
    );
  });

  it('measures every event from its acceptance to its final outcome', () => {
    expect(result.latency.events).toBeGreaterThan(90);
    expect(result.latency.maxSeconds).toBeGreaterThanOrEqual(result.latency.p99Seconds);
  });

  it('credits and debits exactly the points the model computes', () => {
    expect(result.points.observed).toEqual(result.points.expected);
  });

  it('armed every fault kind and a fault on every route the worker calls', () => {
    for (const kind of FAULT_KINDS) expect(result.faults.byKind[kind], kind).toBeGreaterThan(0);
    for (const route of WORKER_ROUTES) expect(result.faults.byRoute[route.name], route.name).toBeGreaterThan(0);
  });

  it('crashed the worker between protocol steps and let leases expire', () => {
    expect(result.faults.crashes).toBeGreaterThan(0);
    expect(result.faults.leaseExpiries).toBeGreaterThan(0);
  });

  it('delivered duplicates, concurrent copies and refunds before their purchase', () => {
    expect(result.scenario.duplicates).toBeGreaterThan(0);
    expect(result.scenario.concurrentDuplicates).toBeGreaterThan(0);
    expect(result.scenario.reordered).toBeGreaterThan(0);
  });
});
