import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';

/** Runs `npm start` (tsx local/main.ts) with extra environment until it exits. */
function npmStart(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    env: { ...process.env, PORT: '0', EMULATOR_PORT: '0', DYNAMODB_PORT: '0', SHOPIFY_ADMIN_PORT: '0', SQUARE_ORDERS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // Should it come up after all, stop it rather than leave it running.
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('npm start', () => {
  it('stops with one clear line, no stack trace, when SOURCES_CONFIG is invalid', async () => {
    const r = await npmStart({ SOURCES_CONFIG: '{"pos":{"bogus":1}}' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('npm start: SOURCES_CONFIG: pos: Unrecognized key: "bogus"\n');
  });

  it('names the port that is taken and the variable that moves it', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await npmStart({ SHOPIFY_ADMIN_PORT: String(port) });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `npm start: port ${port} (SHOPIFY_ADMIN_PORT) is already in use: stop what holds it, or start with SHOPIFY_ADMIN_PORT=<a free port>\n`,
      );
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
