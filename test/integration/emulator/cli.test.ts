import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testClient } from '../../support/emulator.js';
import { request } from './http.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

/** Runs the CLI as `npm run emulator` does (tsx) and resolves with the URL of its ready line. */
function runCli(args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`cli exited ${code}: ${err}`)));
  });
}

const token = (url: string, clientId: string, secret: string) =>
  request(url, 'POST', '/api/ext/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret } });

describe('npm run emulator', () => {
  it('serves the configuration file given with --config on the port chosen by --port 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'emulator-cli-'));
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ clients: [testClient({ client_id: 'file-client', client_secrets: ['file-secret'] })] }));
    const url = await runCli(['--port', '0', '--config', file]);
    expect((await token(url, 'file-client', 'file-secret')).status).toBe(200);
  });

  it('serves the demo configuration without --config', async () => {
    const url = await runCli(['--port', '0']);
    const t = (await token(url, 'demo-client', 'demo-secret')).body.access_token;
    const r = await request(url, 'GET', '/api/ext/users/external_id/shopify/1001', { token: t });
    expect(r.body.member.external_ids.shopify).toBe('1001');
  });

  it('exits with the reason when the configuration is invalid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'emulator-cli-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ clients: [{ client_id: 'x' }] }));
    await expect(runCli(['--port', '0', '--config', file])).rejects.toThrow(/client_secrets/);
  });
});
