import { DEFAULT_IN_DOUBT_SECONDS } from '../shared/config/index.js';
import { createTillMirrors, type TillMirrorRecord } from '../shared/ledger/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import { createSmaregiClient, settleTillMirrors } from '../shared/sources/smaregi/index.js';
import { SMAREGI_LOCAL } from '../stand-ins/smaregi/index.js';
import type { Mismatch } from './compare.js';
import { CHAOS_CLIENT } from './emulator-config.js';
import type { Scenario } from './scenario.js';
import { CHAOS_TILL_POINT_SEED } from './smaregi.js';
import type { ChaosStack } from './stack.js';

/**
 * One balance on both channels in a chaos run (issue 51, item 2): every points change of a member
 * (web deductions and give-backs, till earnings and voids) is mirrored to their Smaregi record, exactly
 * once. After the final audit, the steps still unfinished are finished (settleTillMirrors, as a schedule
 * would), then each customer's Smaregi point must be its seed plus the changes mirrored to it: the till's
 * own spends all end given back (smaregi.ts), so an add made twice or never shows as a difference. A step
 * refused, in conflict or still unfinished is a mismatch too (a void step is not: its points call never ran). The line says how many members spent on
 * both channels (a web redemption and a till spend).
 */
export async function tillMirrorCheck(
  stack: ChaosStack,
  scenario: Scenario,
  webSpenders: ReadonlySet<number>,
): Promise<{ mismatches: Mismatch[]; line: string }> {
  if (!stack.smaregi) return { mismatches: [], line: 'till mirror: no Smaregi in this run' };
  const { url, contractId } = stack.smaregi;
  const openapi = createOpenApiClient({ credentials: staticCredentials({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }) });
  const smaregi = createSmaregiClient({
    contractId,
    apiOrigin: url,
    idOrigin: url,
    credentials: async () => ({ clientId: SMAREGI_LOCAL.clientId, clientSecret: SMAREGI_LOCAL.clientSecret }),
  });
  const steps = createTillMirrors({
    client: stack.ledgerTable.documentClient,
    tableName: stack.ledgerTable.tableName,
    clock: stack.clock.now,
  });
  try {
    // As a later schedule would: past the in-doubt horizon, so a step whose add was in doubt is settled.
    passInDoubtHorizon(stack);
    const settled = await settleTillMirrors({ source: 'smaregi', externalKey: 'smaregi', openapi, smaregi, steps });
    const all = await steps.list();
    const mismatches: Mismatch[] = [];
    const byCustomer = new Map<string, TillMirrorRecord[]>();
    for (const s of all) {
      // Skipped: nothing to mirror; void: the points call it mirrors never ran (a redemption in doubt ended `not_run`).
      if (s.state === 'skipped' || s.state === 'void') continue;
      if (s.state !== 'done')
        mismatches.push({ customer: null, what: `till mirror step ${s.marker} ended ${s.state}${s.reason ? ` (${s.reason})` : ''}` });
      if (s.smaregiCustomerId) byCustomer.set(s.smaregiCustomerId, [...(byCustomer.get(s.smaregiCustomerId) ?? []), s]);
    }
    let both = 0;
    for (const c of scenario.customers) {
      const id = String(c.index + 1);
      const mirrored = (byCustomer.get(id) ?? []).filter((s) => s.state === 'done').reduce((n, s) => n + s.points, 0);
      const res = await fetch(`${url}/__smaregi/customers/${id}`);
      const point = Number(((await res.json()) as { point?: string }).point ?? 'NaN');
      if (point !== CHAOS_TILL_POINT_SEED + mirrored)
        mismatches.push({
          customer: c.index,
          what: `Smaregi customer ${id} holds ${point} points, its seed ${CHAOS_TILL_POINT_SEED} plus the ${mirrored} mirrored to it make ${CHAOS_TILL_POINT_SEED + mirrored}`,
        });
      const tillSpender = (byCustomer.get(id) ?? []).length > 0 && spendsAtTill(scenario, c.index);
      if (webSpenders.has(c.index) && tillSpender) both += 1;
    }
    const done = all.filter((s) => s.state === 'done').length;
    return { mismatches, line: `till mirror: steps=${all.length} done=${done} settled_at_end=${settled} members_spending_both=${both}` };
  } finally {
    await smaregi.close();
    await openapi.close();
  }
}

/** Moves the (idle) run's clock past the in-doubt horizon, in as many jumps as a jump limit allows. */
function passInDoubtHorizon(stack: ChaosStack): void {
  let left = DEFAULT_IN_DOUBT_SECONDS * 1000 + 1000;
  stack.clock.setJumpLimit(undefined);
  while (left > 0) {
    const moved = stack.clock.jump(left);
    if (moved <= 0) break;
    left -= moved;
  }
}

/** Whether the customer has a Smaregi sale paid partly in points (smaregi.ts: sales whose spend ends given back). */
function spendsAtTill(scenario: Scenario, index: number): boolean {
  return scenario.events.some((e) => e.kind === 'purchase' && e.source === 'smaregi' && e.customer === index);
}
