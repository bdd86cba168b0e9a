import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testClient } from '../../../support/emulator.js';
import { request } from './http.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGTERM');
});

/** Starts the CLI as `npm run emulator` does (tsx), collecting what it prints; killed after each test. */
function spawnCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'stand-ins/openapi/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const printed = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => {
    printed.stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    printed.stderr += d.toString();
  });
  return { child, printed };
}

/** Runs the CLI and resolves with the URL of its ready line. */
function runCli(args: string[]): Promise<string> {
  const { child, printed } = spawnCli(args);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      const url = /^emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(printed.stdout)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`cli exited ${code}: ${printed.stderr}`)));
  });
}

/** Runs the CLI to its end: exit code and what it printed. */
function runCliToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, printed } = spawnCli(args);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...printed })));
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
    await expect(runCli(['--port', '0', '--config', file])).rejects.toThrow(/cli exited 2: .*client_secrets/s);
  });

  it('prints the usage on stdout and exits 0 with --help', async () => {
    const r = await runCliToExit(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run emulator -- \[--port 8787\] \[--host 127\.0\.0\.1\] \[--config FILE\]/);
    expect(r.stderr).toBe('');
  });

  it('names an unknown option in one line, then the usage, and exits 2', async () => {
    const r = await runCliToExit(['--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("emulator: Unknown option '--nope'");
    expect(r.stderr).toContain('usage: npm run emulator');
    expect(r.stderr).not.toContain('TypeError');
  });

  it('says a missing --config file is missing in one line and exits 2', async () => {
    const r = await runCliToExit(['--port', '0', '--config', 'nope.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('emulator: --config nope.json: no such file\n');
  });

  it('says a busy port is in use in one line and exits 1', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = busy.address() as AddressInfo;
      const r = await runCliToExit(['--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`emulator: 127.0.0.1:${port} is already in use; choose another port with --port (0: any free port)\n`);
    } finally {
      busy.close();
    }
  });
});
