import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoServerClock, httpServerClock, refuseSkewedClock } from '../../../ops/clock-skew.js';
import { DynamoDBClient, DynamoDBDocumentClient } from '../../../shared/dynamodb/index.js';
import { type LocalDynamo, startDynalite } from '../../../kit/dynalite.js';
import { type DatedServer, startDatedServer } from '../../support/dated-server.js';

describe("refusing to run on a clock off the server's", () => {
  let server: DatedServer;
  let dynamo: LocalDynamo;
  beforeAll(async () => {
    server = await startDatedServer();
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await server?.close();
    await dynamo?.stop();
  });

  it('refuses a machine 20 s ahead of the server, naming the skew, the server and how to sync', async () => {
    server.setOffset(-20_000);
    const refused = refuseSkewedClock(httpServerClock(server.url));
    await expect(refused).rejects.toMatchObject({ kind: 'clock_skew' });
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toMatch(new RegExp(`^this machine's clock is (19\\.[5-9]|20\\.[0-5]) s ahead of ${new URL(server.url).host} `));
    expect(message).toContain('Nothing was changed. Sync the clock (Linux: sudo chronyc makestep');
  });

  it('refuses a machine 20 s behind the server too', async () => {
    server.setOffset(20_000);
    await expect(refuseSkewedClock(httpServerClock(server.url))).rejects.toThrow(/clock is (19\.[5-9]|20\.[0-5]) s behind /);
  });

  it('lets a machine within a second of the server run', async () => {
    server.setOffset(300);
    const skew = await refuseSkewedClock(httpServerClock(server.url));
    expect(Math.abs(skew.skewMs)).toBeLessThanOrEqual(1000);
  });

  it("reads the clock of the DynamoDB endpoint a command talks to from its answer's Date header", async () => {
    const client = new DynamoDBClient({
      endpoint: server.url,
      region: 'ap-northeast-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const dynamoAt = dynamoServerClock(DynamoDBDocumentClient.from(client), 'ledger');
    try {
      server.setOffset(-20_000);
      await expect(refuseSkewedClock(dynamoAt)).rejects.toThrow(/clock is (19\.[5-9]|20\.[0-5]) s ahead of DynamoDB \(table ledger\)/);
      server.setOffset(0);
      await expect(refuseSkewedClock(dynamoAt)).resolves.toMatchObject({ server: 'DynamoDB (table ledger)' });
    } finally {
      client.destroy();
    }
  });

  it('measures the ledger’s own DynamoDB (dynalite) as within a second of this machine, and a clock 20 s fast as not', async () => {
    const dynamoAt = dynamoServerClock(dynamo.documentClient, dynamo.tableName);
    await expect(refuseSkewedClock(dynamoAt)).resolves.toMatchObject({ server: `DynamoDB (table ${dynamo.tableName})` });
    await expect(refuseSkewedClock(dynamoAt, () => Date.now() + 20_000)).rejects.toMatchObject({ kind: 'clock_skew' });
  });

  it('refuses when the answer carries no readable Date, saying the clock cannot be checked', async () => {
    const noDate = async () => ({ server: 'example', sentAt: Date.now(), receivedAt: Date.now(), date: undefined });
    await expect(refuseSkewedClock(noDate)).rejects.toThrow(
      "example answered without a readable Date header (none), so this machine's clock cannot be checked",
    );
  });
});
