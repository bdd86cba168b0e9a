import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { membersCommand } from '../../../ops/members.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

const TARO = '8f6d2c1e-0008-4000-8000-000000000008';
const CAROL = '8f6d2c1e-0003-4000-8000-000000000003';
const DAVE = '8f6d2c1e-0004-4000-8000-000000000004';
const NOBODY = '8f6d2c1e-0099-4000-8000-000000000099';

function csv(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'members-')), 'link.csv');
  writeFileSync(file, text);
  return file;
}

/** `npm run members -- link --source smaregi --file FILE` against `npm start`'s stack, run in-process as the CLI runs it. */
describe('npm run members -- link for Smaregi customer codes', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off' }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
    await seedSmaregiCustomer(stack, { customerId: '100', customerCode: 'C-0100' });
  });

  const members = async (...args: string[]) => {
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await membersCommand(['link', '--source', 'smaregi', ...args], { PORT: new URL(stack.urls.intake).port }, out);
    return { code, lines };
  };
  const daveBalance = async () => (await handle.openapi.getMember(DAVE)).point;

  it('links a code once, counts one already linked, refuses an unknown member and a code another member holds, and the worker credits the code’s earlier sale', async () => {
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '3001', { customerId: '100' }));
    expect((await deliverSmaregi(stack, ['3001'])).status).toBe(202);
    await handle.waitForIdle();
    const before = await daveBalance();
    const file = csv(`external_id,member_id\nC-0100,${DAVE}\nC-0001,${TARO}\nC-0001,${CAROL}\nC-0200,${NOBODY}\n`);
    const first = await members('--file', file);
    const second = await members('--file', file);
    // The crediting was queued for the stack's worker, not done by the command.
    await handle.waitForIdle();
    expect({
      first: [first.code, first.lines.at(-1)],
      queued: first.lines.at(-2),
      refusals: first.lines.filter((l) => l.includes('refused:')),
      second: second.lines.at(-1),
      linked: (await handle.openapi.getMember(DAVE)).external_ids?.smaregi,
      credited: (await daveBalance()) - before,
    }).toEqual({
      first: [1, 'members: rows=4 linked=1 already=1 refused=2'],
      queued:
        'queued for the worker: the earlier purchases of the 1 code(s) linked now, credited once each (npm run ledger -- smaregi --customer <code> lists those still waiting)',
      refusals: [
        `line 4: C-0001 -> ${CAROL}: refused: the code is held by another member`,
        `line 5: C-0200 -> ${NOBODY}: refused: unknown member`,
      ],
      second: 'members: rows=4 linked=0 already=2 refused=2',
      linked: 'C-0100',
      credited: 500,
    });
  });

  it('changes nothing in a dry run', async () => {
    const file = csv(`external_id,member_id\nC-0300,${CAROL}\n`);
    const run = await members('--file', file, '--dry-run');
    expect([run.lines.at(-1), (await handle.openapi.getMember(CAROL)).external_ids?.smaregi]).toEqual([
      'members: rows=1 linked=1 already=0 refused=0',
      undefined,
    ]);
  });

  it('refuses a file whose header is not external_id,member_id, and links nothing', async () => {
    const run = await members('--file', csv(`code,member\nC-0400,${CAROL}\n`));
    expect([run.code, run.lines[0]?.split('\n')[0], (await handle.openapi.getMember(CAROL)).external_ids?.smaregi]).toEqual([
      2,
      "the file's first line must be exactly external_id,member_id",
      undefined,
    ]);
  });
});

/** SMAREGI_MEMBER_LOOKUP=unique_id: the customer code on the member's card is the membership number; no linking. */
describe('Smaregi members found by unique_id', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off', smaregi: { memberLookup: 'unique_id' } }, (made) => {
    ({ stack, handle } = made);
  });

  it('credits a sale whose customer code is the member’s unique_id, with no external id linked', async () => {
    await seedSmaregiCustomer(stack, { customerId: '7', customerCode: 'M0007' });
    await seedSmaregiTransaction(stack, smaregiTransaction('transaction-sale-tax-included.json', '3101', { customerId: '7' }));
    const before = (await handle.openapi.getMemberByUniqueId('M0007')).point;
    expect((await deliverSmaregi(stack, ['3101'])).status).toBe(202);
    await handle.waitForIdle();
    expect((await handle.openapi.getMemberByUniqueId('M0007')).point).toBe(before + 500);
  });
});
