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
    // The till's own changes noted for the settles (`till`) are not steps: list() leaves them out.
    expect(await steps.list()).toHaveLength(2 * (TILL_MIRROR_STATES.length - 1));
  });
});

describe('the changes of one member’s till record around a step’s read', () => {
  it('finds the member’s sent steps and till notes since a moment, not the step itself, an older one or another member’s', async () => {
    const start = clock();
    const mine = async (marker: string, memberId = 'member-a') => {
      await steps.begin({ source: 'smaregi', marker, memberId, points: 5, state: 'pending' });
      return steps.send({ source: 'smaregi', marker, memberId }, { smaregiCustomerId: '9', before: 100, readAt: clock() }, 'pending');
    };
    await mine('a-old');
    clock.advance(10_000);
    const self = await mine('a-self');
    await mine('a-other');
    await mine('b-other', 'member-b');
    await steps.noteTill({ source: 'smaregi', marker: 'a-spend', memberId: 'member-a', points: -50 });
    const found = await steps.around(self ?? { pk: '', source: 'smaregi', memberId: 'member-a' }, start + 5_000);
    expect(found.map((s) => [s.marker, s.state]).sort()).toEqual([
      ['a-other', 'sending'],
      ['a-spend', 'till'],
    ]);
  });
});
