import { describe, expect, it } from 'vitest';
import { buildModel } from '../../chaos/model.js';
import { generateScenario } from '../../chaos/scenario.js';
import { applyMissedEdits, planMissedEdits } from '../../chaos/smaregi-edits.js';

/** The Smaregi sales a chaos run edits with no webhook (the short run of `npm test` uses seed 20261122). */
describe('Smaregi missed edits in the chaos plan', () => {
  it('edits some credited Smaregi sales of the short run, each halved', () => {
    const scenario = generateScenario({ events: 100, seed: 20261122 });
    const edits = planMissedEdits(scenario, buildModel(scenario));
    expect([edits.length > 0, edits.every((e) => e.editedTo === Math.floor(e.amount / 2) && e.debit > 0)]).toEqual([true, true]);
  });

  it('expects each edited sale to leave its member what the edited amount earns, the edit one debit of the difference', () => {
    const scenario = generateScenario({ events: 400, seed: 5 });
    const model = buildModel(scenario);
    const edits = planMissedEdits(scenario, model);
    const before = edits.map((e) => model.customers.get(e.customer)?.balance ?? 0);
    applyMissedEdits(model, edits);
    const order = edits[0] ? model.orders.get(edits[0].orderId) : undefined;
    expect([
      order?.credit,
      (order?.credit ?? 0) - (order?.debitTotal ?? 0),
      order?.refundIds,
      model.customers.get(edits[0]?.customer ?? -1)?.balance,
    ]).toEqual([
      edits[0]?.credit,
      (edits[0]?.credit ?? 0) - (edits[0]?.debit ?? 0),
      ['adj'],
      (before[0] ?? 0) - edits.filter((e) => e.customer === edits[0]?.customer).reduce((n, e) => n + e.debit, 0),
    ]);
  });
});
