import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateSenders, staleFiles, withRegions } from '../../../tools/gen-senders.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The files the generator writes into, as they are here (their hand-written parts and markers). */
const TABLES = ['registry.ts', 'source-settings.ts', 'ops.entry.ts', 'resolution.entry.ts'].map((f) => `shared/sources/${f}`);
const tables = Object.fromEntries([...TABLES, 'stand-ins/registry.ts'].map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));

/** A root holding SENDER_KINDS, this repository's table files and the given files (path → text). */
function rootWith(kinds: string[], files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gen-senders-'));
  const list = `export const SENDER_KINDS = [${kinds.map((k) => `'${k}'`).join(', ')}] as const;\n`;
  for (const [path, text] of Object.entries({ ...tables, 'shared/sources/senders.ts': list, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The files a complete kind `acme` provides (no resolution, no API client). */
const acme = {
  'shared/sources/acme/settings.ts': 'export const acmeSettingsKind = {};\n',
  'shared/sources/acme/webhook.ts': 'export const acmeSource = {};\n',
  'shared/sources/acme/ops.ts': "export const ACME_OPS = { standIn: 'acme-sender' };\n",
};

describe('npm run gen:senders', () => {
  it("has written this repository's sender tables as SENDER_KINDS and the kinds' folders give them (run npm run gen:senders)", () => {
    const generated = generateSenders(ROOT);
    expect({ problems: generated.problems, stale: staleFiles(ROOT, generated) }).toEqual({ problems: [], stale: [] });
  });

  it('registers a new kind in every table from its one line in SENDER_KINDS', () => {
    const { files, problems } = generateSenders(rootWith(['acme'], acme));
    expect(problems).toEqual([]);
    expect([
      files.get('shared/sources/registry.ts')?.includes("import { acmeSource } from './acme/webhook.js';\n"),
      files.get('shared/sources/registry.ts')?.includes('  acme: acmeSource,\n  // gen:senders end'),
      files.get('shared/sources/source-settings.ts')?.includes('  acme: acmeSettingsKind,\n'),
      files.get('shared/sources/ops.entry.ts')?.includes('  acme: ACME_OPS,\n'),
      files.get('shared/sources/registry.ts')?.includes('shopifySource'),
      files.get('shared/sources/resolution.entry.ts')?.includes('smaregiResolution'),
    ]).toEqual([true, true, true, true, false, false]);
  });

  it("keeps a table file's hand-written lines and rewrites only its marked regions", () => {
    const text = [
      'a',
      '// gen:senders imports: do not edit',
      'old;',
      '// gen:senders end',
      'b',
      '  // gen:senders table',
      '  old,',
      '  // gen:senders end',
      'c',
      '',
    ];
    expect([
      withRegions(text.join('\n'), { imports: ['x;'], table: ['  y,', '  z,'] }),
      withRegions(text.slice(0, 5).join('\n'), { imports: [], table: [] }),
    ]).toEqual([
      [
        'a',
        '// gen:senders imports: do not edit',
        'x;',
        '// gen:senders end',
        'b',
        '  // gen:senders table',
        '  y,',
        '  z,',
        '  // gen:senders end',
        'c',
        '',
      ].join('\n'),
      undefined,
    ]);
  });

  it('names the file and the export a kind lacks', () => {
    const { 'shared/sources/acme/settings.ts': _, ...withoutSettings } = acme;
    const root = rootWith(['acme'], { ...withoutSettings, 'shared/sources/acme/webhook.ts': 'export const source = {};\n' });
    expect(generateSenders(root).problems).toEqual([
      'acme: shared/sources/acme/settings.ts is missing (its settings side, a SourceSettingsKind: export const acmeSettingsKind)',
      'acme: shared/sources/acme/webhook.ts does not export acmeSource (its WebhookSource)',
    ]);
  });

  it("lists a kind's resolution when its folder has resolution.ts, and asks for its export", () => {
    const withResolution = rootWith(['acme'], { ...acme, 'shared/sources/acme/resolution.ts': 'export const acmeResolution = {};\n' });
    const wrongName = rootWith(['acme'], { ...acme, 'shared/sources/acme/resolution.ts': 'export const resolution = {};\n' });
    expect([
      generateSenders(withResolution).files.get('shared/sources/resolution.entry.ts')?.includes('  acmeResolution,\n  // gen:senders end'),
      generateSenders(wrongName).problems,
    ]).toEqual([true, ['acme: shared/sources/acme/resolution.ts does not export acmeResolution (its SenderResolution)']]);
  });

  it('asks a kind with an API client for a stand-in of that API, and registers the stand-in it has', () => {
    const client = { ...acme, 'shared/sources/acme/client.ts': 'export {};\n', 'shared/sources/acme/index.ts': 'export {};\n' };
    const withStandIn = rootWith(['acme'], { ...client, 'stand-ins/acme-sender/local.ts': 'export const localStandIn = {};\n' });
    expect([
      generateSenders(rootWith(['acme'], client)).problems,
      generateSenders(withStandIn)
        .files.get('stand-ins/registry.ts')
        ?.includes("import { localStandIn as acmeSender } from './acme-sender/local.js';"),
    ]).toEqual([
      [
        'acme: it has an API client (shared/sources/acme/client.ts) but no stand-in of that API: stand-ins/acme-sender/local.ts exporting localStandIn',
      ],
      true,
    ]);
  });
});
