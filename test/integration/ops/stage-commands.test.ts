import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatJst } from '../../../shared/time/index.js';
import { cliCommand } from '../../../ops/index.js';
import { membersCommand } from '../../../ops/members.js';
import { pointsReportCommand } from '../../../ops/points-report.js';
import { jstDay } from '../../../shared/accounting/index.js';
import { redemptionsCommand } from '../../../ops/redemptions-command.js';
import { returnsCommand } from '../../../ops/returns-command.js';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../stand-ins/shopify-admin/index.js';
import { adminTokenSecretName, loadStageConfig } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';
import { ProcessingSettings } from '../../../shared/config/index.js';
import { createLedger, createRedemptionLedger, createTillReturns, type Ledger } from '../../../shared/ledger/index.js';
import { createCustomerRecords, withCustomerEvents } from '../../../shared/customers/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { createProcessor, type Processor } from '../../../shared/points/index.js';
import { createPrivacyRequests } from '../../../shared/privacy/index.js';
import { ledgerPlannedPause } from '../../../shared/consumer/index.js';
import { purchase } from '../shared/points/harness.js';
import { type AwsBoundary, startAwsBoundary, stubAwsEndpoints } from '../../support/aws-boundary.js';
import { type LocalDynamo, startDynalite } from '../../../kit/dynalite.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';
import { stageOutputs, synthesisedStage, writeStageOutputsFile } from '../../support/synthesised-outputs.js';
import { startDatedServer } from '../../support/dated-server.js';
import { httpServerClock } from '../../../ops/clock-skew.js';

/**
 * The operator commands against a deployed stage (`--stage staging`) as an operator runs them: the
 * synthesised staging stack's outputs (keys as CloudFormation writes them), the ledger in dynalite
 * through the real SDK, the Open API the emulator, and SQS and Secrets Manager answered at their HTTP
 * boundary (test/support/aws-boundary.ts).
 */
describe('stage commands (--stage)', () => {
  let emulator: TestEmulator;
  let boundary: AwsBoundary;
  let dynamo: LocalDynamo;
  let ledger: Ledger;
  let dir: string;
  let outputsFile: string;
  let queues: { queue: string; dlq: string };
  let shop: ShopifyAdminStandIn;

  const physical = () => ({
    ref: (logicalId: string, type: string) =>
      type === 'AWS::DynamoDB::Table'
        ? logicalId.startsWith('Ledger')
          ? dynamo.tableName
          : 'quarantine'
        : type === 'AWS::SQS::Queue'
          ? `${boundary.url}/111111111111/${logicalId}.fifo`
          : logicalId.toLowerCase(),
  });
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await cliCommand(
      [...args, '--stage', 'staging', '--outputs', outputsFile],
      {},
      {
        print: (l) => lines.push(l),
        printError: (l) => lines.push(l),
      },
    );
    return { code, lines };
  };
  /** The stage worker's processor for customer events (a link's earlier purchases) beside points events. */
  const workerWithCustomers = (processor: Processor, openapi: OpenApiClient) =>
    withCustomerEvents(processor, {
      records: createCustomerRecords({
        client: dynamo.documentClient,
        tableName: dynamo.tableName,
        clock: Date.now,
        leaseSeconds: 30,
        ttlDays: 400,
      }),
      openapi,
      ledger,
      clock: Date.now,
    });
  /** A purchase whose processing failed with `reason`, and its message dead-lettered. */
  const deadLetter = async (orderId: string, reason: string) => {
    const ref = { source: 'shopify', orderId };
    await ledger.claimPurchase({ ...ref, owner: 'w1', eligibleAmount: 1000, currency: 'JPY', externalKey: 'shopify', externalId: '1001' });
    await ledger.releaseOrder(ref, 'w1', { lastError: reason });
    const body = JSON.stringify({ kind: 'purchase', eventId: `shopify:order:${orderId}`, source: 'shopify', orderId });
    return boundary.put(queues.dlq, { body, groupId: 'shopify:shopify:1001', receiveCount: 5 });
  };

  beforeAll(async () => {
    // Synthesised first: seconds of CPU would outlast dynalite's keep-alive on the ledger's idle socket.
    synthesisedStage('staging');
    boundary = await startAwsBoundary();
    emulator = await startTestEmulator();
    boundary.setSecret(
      'loyalty-bridge/staging/openapi',
      JSON.stringify({ base_url: emulator.url, client_id: 'test-client', client_secret: 'test-secret' }),
    );
    // The shop's Admin API for the redemption sweep, with the token the stage's secret holds.
    shop = await startShopifyAdminStandIn({ accessToken: 'shpat_stage_redemptions' });
    boundary.setSecret(
      adminTokenSecretName(loadStageConfig(INFRA_DIR, 'staging'), 'shopify'),
      JSON.stringify({ access_token: 'shpat_stage_redemptions' }),
    );
    dynamo = await startDynalite();
    ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
    dir = mkdtempSync(join(tmpdir(), 'stage-dlq-'));
    outputsFile = writeStageOutputsFile(dir, 'staging', physical());
    const { outputs } = stageOutputs('staging', physical());
    queues = { queue: outputs.QueueUrl!, dlq: outputs.DeadLetterQueueUrl! };
    stubAwsEndpoints({
      dynamodb: dynamo.endpoint,
      sqs: boundary.url,
      secretsManager: boundary.url,
      ssm: boundary.url,
      lambda: boundary.url,
    });
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await boundary?.close();
    await shop?.close();
    await emulator?.close();
    await dynamo?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('redemptions list and sweep --stage read the stage’s ledger and end a code past its end with the shop’s token, giving its points back once', async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    try {
      const member = await openapi.registerMember({ external_ids: { shopify: '7200000001' } });
      const redemptions = createRedemptionLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
      const started = await redemptions.start(
        {
          source: 'shopify',
          customerId: '7200000001',
          memberId: member.id,
          requestId: 'stage-req-00000001',
          points: 300,
          value: '300',
          currency: 'JPY',
          code: 'PTS-STAGESWEEP01',
          // Ended two hours ago: past the sweep's grace (redemption.graceSeconds, 3600 by default).
          expiresAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
        },
        'maker',
      );
      expect(started.created).toBe(true);
      await redemptions.update(started.created ? started.record.pk : '', 'maker', { state: 'redeemed', deducted: true }, { release: true });
      const run = async (...args: string[]) => {
        const lines: string[] = [];
        const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
        const code = await redemptionsCommand([...args, '--stage', 'staging', '--outputs', outputsFile], {}, out, {
          adminOrigin: shop.url,
        });
        return { code, lines };
      };

      const listed = await run('list', '--customer', '7200000001');
      expect(listed.code).toBe(0);
      expect(listed.lines.some((l) => l.includes('PTS-STAGESWEEP01') && l.includes('redeemed'))).toBe(true);

      const swept = await run('sweep');
      expect(swept).toMatchObject({ code: 0 });
      expect(swept.lines.at(-1)).toBe('redemptions sweep: due=1 returned=1 used=0 failed=0 later=0');
      expect((await openapi.getMember(member.id)).point).toBe(300);
      expect((await run('sweep')).lines.at(-1)).toBe('redemptions sweep: due=0 returned=0 used=0 failed=0 later=0');
      expect((await openapi.getMember(member.id)).point).toBe(300);
      expect((await run('list', '--customer', '7200000001')).lines.some((l) => l.includes('returned') && l.includes('expired'))).toBe(true);
    } finally {
      await openapi.close();
    }
  });

  it('redemptions sweep --stage refuses to run on a machine 20 s ahead of the server, naming the skew, and changes nothing; within a second it sweeps', async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    const server = await startDatedServer();
    try {
      const member = await openapi.registerMember({ external_ids: { shopify: '7200000002' } });
      const redemptions = createRedemptionLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
      const started = await redemptions.start(
        {
          source: 'shopify',
          customerId: '7200000002',
          memberId: member.id,
          requestId: 'stage-req-00000002',
          points: 200,
          value: '200',
          currency: 'JPY',
          code: 'PTS-STAGESKEW001',
          expiresAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
        },
        'maker',
      );
      const pk = started.created ? started.record.pk : '';
      await redemptions.update(pk, 'maker', { state: 'redeemed', deducted: true }, { release: true });
      const before = await redemptions.get(pk);
      const sweep = async () => {
        const lines: string[] = [];
        const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
        const code = await redemptionsCommand(['sweep', '--stage', 'staging', '--outputs', outputsFile], {}, out, {
          adminOrigin: shop.url,
          serverClock: httpServerClock(server.url),
        });
        return { code, lines };
      };

      server.setOffset(-20_000);
      const refused = await sweep();
      expect(refused.code).toBe(2);
      expect(refused.lines.join('\n')).toMatch(/^redemptions: this machine's clock is (19\.[5-9]|20\.[0-5]) s ahead of 127\.0\.0\.1:\d+ /);
      expect(refused.lines.join('\n')).toContain('Nothing was changed. Sync the clock');
      expect(await redemptions.get(pk)).toEqual(before);
      expect((await openapi.getMember(member.id)).point).toBe(0);

      server.setOffset(0);
      const swept = await sweep();
      expect([swept.code, swept.lines.at(-1)]).toEqual([0, 'redemptions sweep: due=1 returned=1 used=0 failed=0 later=0']);
      expect((await openapi.getMember(member.id)).point).toBe(200);
    } finally {
      await server.close();
      await openapi.close();
    }
  });

  it('redemptions --stage refuses a source the stage file gives no shop to reconcile, naming the setting', async () => {
    const lines: string[] = [];
    const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
    const code = await redemptionsCommand(['list', '--source', 'pos', '--stage', 'staging', '--outputs', outputsFile], {}, out);
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('infra/stages/staging.json has no reconcile.pos');
  });

  it('redrive --dry-run names each dead letter with the reason the ledger kept, and moves nothing', async () => {
    const id = await deadLetter('dry-1', 'validation: The amount must be an integer.');
    const run = await cli('redrive', '--dry-run');
    expect(run.code).toBe(0);
    expect(run.lines).toContain(
      `would move ${id} (group shopify:shopify:1001, 6 receives, last error: validation: The amount must be an integer.)`,
    );
    expect(run.lines.at(-1)).toMatch(/^dry run: \d+ message\(s\) in the dead-letter queue, nothing moved$/);
    expect(boundary.messages(queues.dlq).map((m) => m.id)).toContain(id);
    expect(boundary.messages(queues.queue)).toEqual([]);
  });

  it('dlq lists the stage dead letters with their reasons', async () => {
    const id = await deadLetter('list-1', 'not_contracted: Not contracted');
    // The dry run above hid its letters for a minute (SQS has no peek): only this one is visible.
    const run = await cli('dlq');
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.lines.join('\n')) as { messageId: string; lastError: string; groupId: string }[];
    expect(listed).toEqual([
      expect.objectContaining({ messageId: id, lastError: 'not_contracted: Not contracted', groupId: 'shopify:shopify:1001' }),
    ]);
  });

  it('redrive moves a dead letter back to the stage queue in its message group', async () => {
    const id = await deadLetter('move-1', 'server: Internal Server Error');
    const run = await cli('redrive');
    expect(run.lines.at(-1)).toBe('moved 1 message(s) from the dead-letter queue back to the queue');
    expect(boundary.messages(queues.dlq).map((m) => m.id)).not.toContain(id);
    expect(boundary.messages(queues.queue)).toEqual([expect.objectContaining({ groupId: 'shopify:shopify:1001' })]);
  });

  it("ledger prints the order's record from the stage's ledger table", async () => {
    await deadLetter('ledger-1', 'timeout: no answer in time');
    const run = await cli('ledger', 'shopify', 'ledger-1');
    expect(run.code).toBe(0);
    expect(run.lines[0]).toBe('order shopify ledger-1');
    expect(run.lines).toContain('    lastError: timeout: no answer in time');
  });

  it('reprocess queues the crediting of a customer’s earlier orders on the stage queue, changing nothing itself; the worker credits them once', async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    try {
      const processor = createProcessor({ ledger, openapi, settings: ProcessingSettings.parse({}), clock: Date.now });
      const order = purchase({ customer: { externalKey: 'shopify', externalId: 'stage-late-1' }, occurredAt: new Date().toISOString() });
      expect(await processor.process(order)).toMatchObject({ kind: 'customer_not_found' });
      await openapi.registerMember({ external_ids: { shopify: 'stage-late-1' } });

      const run = await cli('reprocess', '--source', 'shopify', '--customer', 'stage-late-1');
      expect(run).toEqual({
        code: 0,
        lines: [
          'customer shopify stage-late-1: queued for the worker, which credits once each of their purchases of the last 30 days ' +
            'that found no member (npm run ledger -- shopify --customer stage-late-1 lists those still waiting)',
        ],
      });
      // Nothing was claimed on this machine: the order waits for the worker, whose clock judges the leases.
      expect(await ledger.getOrder(order)).toMatchObject({ outcome: 'customer_not_found' });
      const queued = boundary.messages(queues.queue).filter((m) => JSON.parse(m.body).eventId === 'shopify:customer:stage-late-1:linked');
      expect(queued).toEqual([expect.objectContaining({ groupId: 'shopify:shopify:stage-late-1' })]);

      // The stage's worker takes the message: the order credited once, even if the message came twice.
      const worker = workerWithCustomers(processor, openapi);
      expect(await worker.process(JSON.parse(queued[0]!.body))).toMatchObject({ kind: 'linked', earlier: { credited: 1 } });
      expect(await worker.process(JSON.parse(queued[0]!.body))).toMatchObject({ kind: 'linked', earlier: { credited: 0 } });
      const credited = await ledger.getOrder(order);
      expect(credited?.outcome).toBe('credited');
      const shown = await cli('ledger', 'shopify', '--customer', 'stage-late-1');
      expect(shown.code).toBe(0);
      expect(shown.lines).toContain('  orders waiting for this customer (customer_not_found): none');
      expect(shown.lines.some((l) => /^ {2}membership service: member \S+ holds shopify=stage-late-1$/.test(l))).toBe(true);
    } finally {
      await openapi.close();
    }
  });

  it('reprocess --outcome upstream_rejected queues the stage’s parked purchases on its queue, each credited once', async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    try {
      const processor = createProcessor({ ledger, openapi, settings: ProcessingSettings.parse({}), clock: Date.now });
      await openapi.registerMember({ external_ids: { shopify: 'stage-waf-1' } });
      const order = purchase({ customer: { externalKey: 'shopify', externalId: 'stage-waf-1' }, occurredAt: new Date().toISOString() });
      await emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'status', status: 403, body: '<html>denied</html>' });
      expect(await processor.process(order)).toMatchObject({ kind: 'upstream_rejected' });

      const dry = await cli('reprocess', '--outcome', 'upstream_rejected', '--dry-run');
      expect(dry.lines.at(-1)).toBe('reprocess: found=1 queued=0');
      const run = await cli('reprocess', '--outcome', 'upstream_rejected', '--source', 'shopify');
      expect(run.code).toBe(0);
      expect(run.lines.at(-1)).toBe('reprocess: found=1 queued=1');
      const queued = boundary.messages(queues.queue).filter((m) => (JSON.parse(m.body) as { eventId?: string }).eventId === order.eventId);
      expect(queued).toEqual([expect.objectContaining({ groupId: 'shopify:shopify:stage-waf-1' })]);
      expect(await ledger.getOrder(order)).toMatchObject({ state: 'pending' });

      // The stage's worker takes the message: credited, once, even if it came twice.
      const body = JSON.parse(queued[0]!.body);
      expect(await processor.process(body)).toMatchObject({ kind: 'credited' });
      expect(await processor.process(body)).toMatchObject({ kind: 'duplicate' });
      expect((await cli('reprocess', '--outcome', 'upstream_rejected')).lines.at(-1)).toBe('reprocess: found=0 queued=0');
    } finally {
      await openapi.close();
    }
  });

  it('pause --until disables the stage worker’s event source mapping and records the planned pause; resume enables it', async () => {
    const uuid = 'aaaaaaaa-1111-2222-3333-444444444444';
    boundary.addMapping(uuid);
    boundary.setParameter('/loyalty-bridge/staging/process-events/event-source-mapping', uuid);
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const paused = await cli('pause', '--until', until);
    expect(paused.code).toBe(0);
    expect(paused.lines).toContain('intake keeps accepting; events wait in the queue; the queue keeps messages 4 days');
    // Printed for a person: its times in Japan time with the offset (shared/time).
    expect(paused.lines.at(-1)).toMatch(/^pulling: paused since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\) until /);
    expect(paused.lines.at(-1)?.endsWith(` until ${formatJst(until)}`)).toBe(true);
    expect(boundary.mappingEnabled(uuid)).toBe(false);
    const planned = ledgerPlannedPause({ client: dynamo.documentClient, tableName: dynamo.tableName });
    expect(await planned.get()).toMatchObject({ until });

    const tooLong = await cli('pause', '--until', new Date(Date.now() + 5 * 86_400_000).toISOString());
    expect(tooLong.code).toBe(2);
    expect(tooLong.lines.join('\n')).toContain("beyond the queue's retention (4 days)");

    const resumed = await cli('resume');
    expect(resumed.lines.at(-1)).toBe('pulling: running');
    expect(boundary.mappingEnabled(uuid)).toBe(true);
    expect(await planned.get()).toBeUndefined();
  });

  it("privacy list and show read the privacy requests the stage's worker recorded in its ledger table", async () => {
    expect((await cli('privacy', 'list')).lines).toEqual(['no privacy requests recorded', 'privacy: requests=0']);
    const requests = createPrivacyRequests({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
    const id = 'shopify:privacy:redact_customer:wh-stage-1';
    await requests.save(
      {
        id,
        source: 'shopify',
        action: 'redact_customer',
        topic: 'customers/redact',
        shopDomain: 'example-shop-staging.myshopify.com',
        orderIds: ['5100000000000000001'],
        finishedAt: new Date().toISOString(),
        outcome: 'redacted',
        figures: { orders: 1, refunds: 0, customers: 0, quarantined: 0 },
      },
      400,
    );
    const listed = await cli('privacy', 'list');
    expect(listed.code).toBe(0);
    expect(listed.lines[0]).toMatch(new RegExp(`^${id} {2}customers/redact {2}example-shop-staging\\.myshopify\\.com {2}redacted `));
    expect(listed.lines.at(-1)).toBe('privacy: requests=1');
    expect(JSON.parse((await cli('privacy', 'show', id)).lines.join('\n'))).toMatchObject({
      id,
      outcome: 'redacted',
      figures: { orders: 1 },
    });
  });

  it("members link attaches a Smaregi customer code with the stage's Open API and queues the crediting of the code's earlier sale for the worker", async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    try {
      const processor = createProcessor({ ledger, openapi, settings: ProcessingSettings.parse({}), clock: Date.now });
      const order = purchase({
        source: 'smaregi',
        orderId: 'stage-sm-1',
        customer: { externalKey: 'smaregi', externalId: 'SM-STAGE-1' },
        occurredAt: new Date().toISOString(),
      });
      expect(await processor.process(order)).toMatchObject({ kind: 'customer_not_found' });
      const member = await openapi.registerMember({});
      const file = join(dir, 'codes.csv');
      writeFileSync(file, `external_id,member_id\nSM-STAGE-1,${member.id}\n`);
      const lines: string[] = [];
      const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
      const link = () =>
        membersCommand(['link', '--source', 'smaregi', '--file', file, '--stage', 'staging', '--outputs', outputsFile], {}, out);
      // The membership service ignores an external key its client lacks: refused, not counted linked.
      const unconfigured = [await link(), lines.at(-2)];
      await fetch(`${emulator.url}/__emulator/clients/test-client`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ external_keys: ['shopify', 'pos_card', 'smaregi'] }),
      });
      const code = await link();
      const queued = boundary.messages(queues.queue).filter((m) => JSON.parse(m.body).eventId === 'smaregi:customer:SM-STAGE-1:linked');
      expect({
        unconfigured,
        code,
        last: lines.slice(-2),
        linked: (await openapi.getMember(member.id)).external_ids?.smaregi,
        order: (await ledger.getOrder({ source: 'smaregi', orderId: 'stage-sm-1' }))?.outcome,
        queued: queued.map((m) => m.groupId),
      }).toEqual({
        unconfigured: [
          1,
          `line 2: SM-STAGE-1 -> ${member.id}: refused: the membership service did not keep it: is the external key smaregi configured?`,
        ],
        code: 0,
        last: [
          'queued for the worker: the earlier purchases of the 1 code(s) linked now, credited once each (npm run ledger -- smaregi --customer <code> lists those still waiting)',
          'members: rows=1 linked=1 already=0 refused=0',
        ],
        linked: 'SM-STAGE-1',
        // Not credited on this machine: the worker does it with its own clock.
        order: 'customer_not_found',
        queued: ['smaregi:smaregi:SM-STAGE-1'],
      });
      expect(await workerWithCustomers(processor, openapi).process(JSON.parse(queued[0]!.body))).toMatchObject({
        kind: 'linked',
        earlier: { credited: 1 },
      });
      expect((await ledger.getOrder({ source: 'smaregi', orderId: 'stage-sm-1' }))?.outcome).toBe('credited');
    } finally {
      await openapi.close();
    }
  });

  it('returns apply --stage queues the refund of the sale on the stage queue, and the stage worker takes its share back once', async () => {
    const openapi = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    });
    try {
      await fetch(`${emulator.url}/__emulator/clients/test-client`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ external_keys: ['shopify', 'pos_card', 'smaregi'] }),
      });
      const processor = createProcessor({ ledger, openapi, settings: ProcessingSettings.parse({}), clock: Date.now });
      const member = { externalKey: 'smaregi', externalId: 'SM-RET-1' };
      await openapi.registerMember({ external_ids: { smaregi: member.externalId } });
      const at = new Date().toISOString();
      const sale = purchase({
        source: 'smaregi',
        orderId: '8801',
        customer: member,
        occurredAt: at,
        eligibleAmount: 10_000,
        eligibleExact: '10000',
      });
      const credited = await processor.process(sale);
      const till = createTillReturns({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now });
      await till.rememberSale({
        source: 'smaregi',
        saleId: '8801',
        storeId: '1',
        occurredAt: at,
        ...member,
        lines: [{ productId: 'P1', quantity: '2' }],
      });
      await till.record({
        source: 'smaregi',
        returnId: '8802',
        storeId: '1',
        occurredAt: at,
        ...member,
        amount: '5000',
        currency: 'JPY',
        rule: 'major_floor',
        refundTitle: 'Refund {order}',
        lines: [{ productId: 'P1', quantity: '1', amount: '5500' }],
      });
      const balance = async () => (await openapi.getMemberByExternalId('smaregi', member.externalId)).point;
      const before = await balance();
      const lines: string[] = [];
      const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
      const apply = () =>
        returnsCommand(['apply', '8802', '--sale', '8801', '--by', 'ops', '--stage', 'staging', '--outputs', outputsFile], {}, out);
      const queued = () =>
        boundary.messages(queues.queue).filter((m) => (JSON.parse(m.body) as { refundId?: string }).refundId === 'return-8802');
      const codes = [await apply()];
      const first = await processor.process(JSON.parse(queued()[0]!.body));
      codes.push(await apply());
      const second = await processor.process(JSON.parse(queued()[1]!.body));
      expect({ credited: credited.kind, codes, first: first.kind, second: second.kind, taken: before - (await balance()) }).toEqual({
        credited: 'credited',
        codes: [0, 0],
        first: 'debited',
        second: 'duplicate',
        taken: Math.floor((before * 5000) / 10_000),
      });
    } finally {
      await openapi.close();
    }
  });

  it("privacy smaregi report and erase act on an in-store member in the stage's ledger table", async () => {
    // The member SM-STAGE-1 of the members link test above: their sale stage-sm-1, credited.
    const report = async () => JSON.parse((await cli('privacy', 'smaregi', 'report', 'SM-STAGE-1')).lines.join('\n'));
    expect(await report()).toMatchObject({
      erased: false,
      orders: [{ orderId: 'stage-sm-1', kind: 'sale', outcome: 'credited' }],
      smaregiMirror: { tillPoints: 'ignore' },
    });
    const erased = await cli('privacy', 'smaregi', 'erase', 'SM-STAGE-1');
    expect([erased.code, erased.lines.at(-1)]).toEqual([
      0,
      'privacy smaregi erase: orders=1 refunds=0 returns=0 till_returns=0 till_sales=0 till_mirrors=0 customers=0 tombstone=new busy=0',
    ]);
    expect([
      await report(),
      (await ledger.getOrder({ source: 'smaregi', orderId: 'stage-sm-1' }))?.externalId,
      await ledger.isRedacted({ source: 'smaregi', customerId: 'SM-STAGE-1' }),
    ]).toEqual([expect.objectContaining({ erased: true, orders: [] }), undefined, true]);
  });

  it("audit scans the stage's ledger and ends with its summary line", async () => {
    const run = await cli('audit');
    // The returns apply test above leaves one refund (return-8802) in the stage's ledger.
    expect(run.lines.at(-1)).toMatch(/^audit: orders=\d+ refunds=1 drift=\d+ duplicates=\d+ reversed=\d+$/);
  });

  it("points-report --stage reads the stage's ledger: the month's CSV on stdout, its reconciled line last on stderr", async () => {
    const ref = { source: 'smaregi', orderId: 'stage-report-1' };
    await ledger.claimPurchase({
      ...ref,
      owner: 'w1',
      eligibleAmount: 3000,
      currency: 'JPY',
      store: 'S-77',
      externalKey: 'smaregi',
      externalId: 'SM-9',
    });
    await ledger.finishPurchase(ref, 'w1', { outcome: 'credited', customerId: 'm-9', pointsCredited: 30 });
    const day = jstDay(Date.now()) ?? '';
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await pointsReportCommand(
      ['--month', day.slice(0, 7), '--stage', 'staging', '--outputs', outputsFile],
      {},
      {
        print: (l) => stdout.push(...l.split('\n')),
        printError: (l) => stderr.push(l),
      },
    );
    expect(code).toBe(0);
    expect(stdout[0]).toBe('day,source,store,granted,refunded,bonus,redeemed,spent_till,returned,clawed_back,reversed,net,net_yen');
    expect(stdout).toContain(`${day},smaregi,S-77,30,0,0,0,0,0,0,0,30,30`);
    expect(stderr.at(-1)).toMatch(
      new RegExp(`^points-report: month=${day.slice(0, 7)} rows=${stdout.length - 1} net=-?\\d+ reconciled=yes$`),
    );
  });
});
