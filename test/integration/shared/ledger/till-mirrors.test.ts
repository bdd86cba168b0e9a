import { describe, expect, it } from 'vitest';
import { createTillMirrors, TILL_MIRROR_STATES, type TillMirrors } from '../../../../shared/ledger/index.js';
import { manualClock } from '../../../../kit/dynalite.js';
import { withLocalLedger } from '../../../support/ledger.js';

/** The till mirror steps the nightly audit reads: not the done ones, which are nearly all of them. */
const clock = manualClock();
let steps: TillMirrors;
withLocalLedger({ clock, leaseSeconds: 60 }, ({ dynamo }) => {
  steps = createTillMirrors({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
});

describe('till mirror steps, listed', () => {
  it('lists as open every step but the done and skipped ones, of every source, and as unfinished the planned, pending and sending ones', async () => {
    for (const [i, state] of TILL_MIRROR_STATES.entries()) {
      for (const source of ['smaregi', 'smaregi-2'])
        await steps.begin({ source, marker: `m-${i}`, memberId: 'member-1', points: 10, state });
    }
    const open = (await steps.listOpen()).map((s) => `${s.source} ${s.state}`).sort();
    expect(open).toEqual(
      ['conflict', 'pending', 'planned', 'refused', 'sending'].flatMap((state) => [`smaregi ${state}`, `smaregi-2 ${state}`]).sort(),
    );
    expect((await steps.listUnfinished()).map((s) => s.state).sort()).toEqual([
      'pending',
      'pending',
      'planned',
      'planned',
      'sending',
      'sending',
    ]);
    expect(await steps.list()).toHaveLength(2 * TILL_MIRROR_STATES.length);
  });
});
