import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventSourceMappingSwitch } from '../../../../shared/consumer/index.js';
import { readAll } from '../../../support/raw-http.js';

/**
 * Neither Lambda nor SSM can run here. This server answers GetParameter (SSM's JSON protocol) and
 * Get/UpdateEventSourceMapping (Lambda's REST protocol) as the services document them, so the real SDK
 * clients (serialisation, paths, parsing) are used.
 */
let server: Server;
let baseUrl: string;
let state: 'Enabled' | 'Disabled';
const requests: { method: string; path: string; target: string | undefined; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const text = await readAll(req);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const target = req.headers['x-amz-target'] as string | undefined;
    requests.push({ method: req.method ?? '', path: req.url ?? '', target, body });
    res.setHeader('content-type', 'application/json');
    if (target === 'AmazonSSM.GetParameter') {
      res.end(
        JSON.stringify({ Parameter: { Name: (body as { Name: string }).Name, Type: 'String', Value: 'mapping-uuid-1', Version: 1 } }),
      );
      return;
    }
    if (req.url?.startsWith('/2015-03-31/event-source-mappings/mapping-uuid-1')) {
      if (req.method === 'PUT') state = (body as { Enabled: boolean }).Enabled ? 'Enabled' : 'Disabled';
      res.statusCode = req.method === 'PUT' ? 202 : 200;
      res.end(JSON.stringify({ UUID: 'mapping-uuid-1', State: state }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ message: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  state = 'Enabled';
  requests.length = 0;
});

const client = { region: 'ap-northeast-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example' }, maxAttempts: 1 };
const pull = () =>
  createEventSourceMappingSwitch({
    parameterName: '/loyalty-bridge/staging/process-events/event-source-mapping',
    lambda: new LambdaClient({ ...client, endpoint: baseUrl }),
    ssm: new SSMClient({ ...client, endpoint: baseUrl }),
  });

describe('the worker’s event source mapping as its pull switch', () => {
  it('reads the mapping id from the SSM parameter once, then disables and enables that mapping', async () => {
    const p = pull();
    await p.pause();
    expect(await p.isPaused()).toBe(true);
    await p.resume();
    expect(await p.isPaused()).toBe(false);
    expect(requests.filter((r) => r.target === 'AmazonSSM.GetParameter')).toHaveLength(1);
    expect(requests.find((r) => r.target)?.body).toEqual({ Name: '/loyalty-bridge/staging/process-events/event-source-mapping' });
    const updates = requests.filter((r) => r.method === 'PUT').map((r) => r.body);
    expect(updates).toEqual([{ Enabled: false }, { Enabled: true }]);
  });
});
