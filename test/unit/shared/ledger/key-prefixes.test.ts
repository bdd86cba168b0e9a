import { describe, expect, it } from 'vitest';
import { GetCommand, PutCommand } from '../../../../shared/dynamodb/index.js';
import { guardLeadingKeys, orderKey, redemptionCodeKey, redemptionKey } from '../../../../shared/ledger/index.js';

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
});
