import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, UpdateCommand } from '../../../../shared/dynamodb/index.js';
import {
  FUNCTION_LEDGER_KEYS,
  guardLeadingKeys,
  LEDGER_KEY_PREFIX,
  orderKey,
  redemptionCodeKey,
  redemptionKey,
  reversalKey,
} from '../../../../shared/ledger/index.js';

describe("a function's ledger keys, as its IAM grant allows them", () => {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      return {};
    },
  };
  const guarded = guardLeadingKeys(client, ['redemption#', 'redemption-code#']);

  it('lets through an item command on a key with one of the prefixes', async () => {
    await guarded.send(new GetCommand({ TableName: 't', Key: { pk: redemptionKey('shopify', '1001', 'r-1') } }));
    await guarded.send(new PutCommand({ TableName: 't', Item: { pk: redemptionCodeKey('PTS-A') } }));
    expect(sent).toHaveLength(2);
  });

  it('refuses, sending nothing, an item command on any other key (as AccessDenied would)', async () => {
    sent.length = 0;
    await expect(guarded.send(new GetCommand({ TableName: 't', Key: { pk: orderKey('shopify', '1') } }))).rejects.toThrow(/AccessDenied/);
    expect(sent).toEqual([]);
  });

  it("checks only the commands on its own table when given one (the worker's client also serves the quarantine)", async () => {
    sent.length = 0;
    const ledgerOnly = guardLeadingKeys(client, ['redemption#'], { tableName: 'ledger' });
    await ledgerOnly.send(new PutCommand({ TableName: 'quarantine', Item: { pk: 'delivery#1' } }));
    await expect(ledgerOnly.send(new PutCommand({ TableName: 'ledger', Item: { pk: orderKey('shopify', '1') } }))).rejects.toThrow(
      /AccessDenied/,
    );
    expect(sent).toHaveLength(1);
  });

  it('lets a function granted reads of the whole table read any key, and still refuses its writes elsewhere (the audit)', async () => {
    sent.length = 0;
    const audit = guardLeadingKeys(client, ['reversal#'], { readAnyKey: true });
    await audit.send(new GetCommand({ TableName: 't', Key: { pk: orderKey('shopify', '1') } }));
    await expect(
      audit.send(new UpdateCommand({ TableName: 't', Key: { pk: orderKey('shopify', '1') }, UpdateExpression: 'SET a = :a' })),
    ).rejects.toThrow(/AccessDenied/);
    expect(sent).toHaveLength(1);
  });
});

describe("the worker's and the audit's ledger keys", () => {
  it("give the worker every key prefix of the table but the audit's reversal records", () => {
    const all = Object.values(LEDGER_KEY_PREFIX).filter((p) => p !== LEDGER_KEY_PREFIX.activityRuns);
    expect(new Set(FUNCTION_LEDGER_KEYS.worker)).toEqual(new Set(all.filter((p) => p !== LEDGER_KEY_PREFIX.reversal)));
  });

  it('let the audit write its reversal records only', () => {
    expect(FUNCTION_LEDGER_KEYS.auditWrites).toEqual([`${reversalKey('shopify', 'm-1', 'e-1').split('#')[0]}#`]);
  });
});
