import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions, type FunctionCode } from '../../../infra/bundling.js';

/** The repository's source files a function's bundle carries code of (esbuild's metafile: bytes in the output). */
async function sourcesIn(code: FunctionCode): Promise<string[]> {
  const result = await build({
    ...esbuildOptions(code, `/tmp/bundle-contents-${code}.mjs`),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
  return Object.entries(output?.inputs ?? {})
    .filter(([file, input]) => input.bytesInOutput > 0 && !file.includes('node_modules'))
    .map(([file]) => file);
}

describe('what a function bundle carries', () => {
  it("leaves the senders' webhook parsing out of the worker: it reads the sources' settings only", async () => {
    const files = await sourcesIn('processEvents');
    expect(files.some((f) => f.startsWith('shared/points/'))).toBe(true);
    const parsers = ['pos/webhook.ts', 'square/webhook.ts', 'smaregi/webhook.ts', 'shopify/webhook-payload.ts'];
    expect(files.filter((f) => parsers.some((p) => f === `shared/sources/${p}`))).toEqual([]);
  });

  it('leaves package.json out of every function that calls out (the User-Agent version is a constant)', async () => {
    for (const code of ['processEvents', 'auditLedger', 'shopifyAppProxy'] as const) {
      expect(await sourcesIn(code)).not.toContain('package.json');
    }
  });

  it("leaves the quarantine's operator reads out of the intake: it imports the keeper's light entry", async () => {
    const files = await sourcesIn('receiveWebhook');
    expect(files).toContain('shared/quarantine/store.ts');
    // The list's projection exists only for the operator's reads.
    const bundle = await build({
      ...esbuildOptions('receiveWebhook', '/tmp/bundle-contents-intake.mjs'),
      write: false,
      logLevel: 'silent',
    });
    const text = bundle.outputFiles.find((f) => f.path.endsWith('.mjs'))?.text ?? '';
    expect(text).toContain('bodyKept');
    expect(text).not.toContain('ProjectionExpression');
  });

  it("leaves the ledger's claim and booking writes out of the Smaregi reconcile: it only reads orders and refunds", async () => {
    const files = await sourcesIn('reconcileSmaregi');
    expect(files).toContain('shared/ledger/reader.ts');
    expect(files).not.toContain('shared/ledger/orders.ts');
  });
});
