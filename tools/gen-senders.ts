import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run gen:senders`: writes the sender tables from the one registration line, SENDER_KINDS
 * (shared/sources/senders.ts), and each kind's conventional files (shared/sources/README.md, "Adding a
 * sender"). It writes only the lines between a file's `// gen:senders <imports|table>` and
 * `// gen:senders end` markers. The tables stay separate, each in the file that has always held it, so
 * that each Lambda bundle carries only its own part, byte for byte as when written by hand (esbuild
 * cannot drop one property of an object): the intake the webhook sources (registry.ts), the settings-only
 * functions the settings (source-settings.ts), the worker the resolutions (resolution.entry.ts), the
 * stack the ops needs (ops.entry.ts), the local stack its stand-ins (stand-ins/registry.ts).
 * Reports what a kind lacks, by file and export, and writes nothing then.
 * test/unit/tools/gen-senders.test.ts fails when a written table is stale or a kind lacks something.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = 'shared/sources';

export interface Generated {
  /** Path (from the root) → the text it must hold. */
  readonly files: ReadonlyMap<string, string>;
  /** What the kinds lack (each names the file and the export): nothing is written while there is one. */
  readonly problems: readonly string[];
}

/** A kind's name as an identifier (`acme`, `acme-pay` → `acmePay`) and as a constant (`ACME_PAY`). */
const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const upper = (name: string) => name.replace(/-/g, '_').toUpperCase();

/** SENDER_KINDS as written in shared/sources/senders.ts. */
export function senderKinds(root: string): string[] {
  const path = join(root, SOURCES, 'senders.ts');
  const list = /export const SENDER_KINDS = \[([^\]]*)\]/.exec(existsSync(path) ? readFileSync(path, 'utf8') : '');
  if (!list) throw new Error(`${SOURCES}/senders.ts: no \`export const SENDER_KINDS = [...]\``);
  return [...(list[1] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1] ?? '');
}

interface Kind {
  readonly kind: string;
  readonly resolution: boolean;
  /** Its stand-in's folder under stand-ins/ with a local.ts (the local stack runs it), if it has one. */
  readonly standIn?: string;
}

function exports(root: string, file: string, name: string): boolean | undefined {
  const path = join(root, file);
  if (!existsSync(path)) return undefined;
  return new RegExp(`^export (const|function) ${name}\\b`, 'm').test(readFileSync(path, 'utf8'));
}

/** One kind's conventional files, checked: the kind and what it lacks. */
function readKind(root: string, kind: string, problems: string[]): Kind {
  const dir = `${SOURCES}/${kind}`;
  const need = (file: string, name: string, what: string) => {
    const found = exports(root, `${dir}/${file}`, name);
    if (found === undefined) problems.push(`${kind}: ${dir}/${file} is missing (${what}: export const ${name})`);
    else if (!found) problems.push(`${kind}: ${dir}/${file} does not export ${name} (${what})`);
  };
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(kind)) problems.push(`${kind}: a kind is 1-32 of a-z0-9- starting with a letter`);
  need('settings.ts', `${camel(kind)}SettingsKind`, 'its settings side, a SourceSettingsKind');
  need('webhook.ts', `${camel(kind)}Source`, 'its WebhookSource');
  need('ops.ts', `${upper(kind)}_OPS`, 'what operations need, a SenderOps');
  const client = existsSync(join(root, dir, 'client.ts'));
  if (client && !existsSync(join(root, dir, 'index.ts')))
    problems.push(`${kind}: ${dir}/index.ts is missing (its API client's public face)`);
  const resolution = existsSync(join(root, dir, 'resolution.ts'));
  if (resolution) need('resolution.ts', `${camel(kind)}Resolution`, 'its SenderResolution');
  const opsPath = join(root, dir, 'ops.ts');
  const standInName = existsSync(opsPath) ? /standIn: '([^']+)'/.exec(readFileSync(opsPath, 'utf8'))?.[1] : undefined;
  if (existsSync(opsPath) && standInName === undefined) problems.push(`${kind}: ${dir}/ops.ts names no standIn`);
  const local = standInName === undefined ? undefined : `stand-ins/${standInName}/local.ts`;
  const hasService = local !== undefined && existsSync(join(root, local));
  if (hasService && !exports(root, local, 'localStandIn')) problems.push(`${kind}: ${local} does not export localStandIn (a LocalStandIn)`);
  if (!hasService && client) {
    problems.push(
      `${kind}: it has an API client (${dir}/client.ts) but no stand-in of that API: stand-ins/${standInName ?? '<its ops standIn>'}/local.ts exporting localStandIn`,
    );
  }
  return { kind, resolution, ...(hasService ? { standIn: standInName } : {}) };
}

/** One import line each, `import { <name> } from '<path>';`, in the order of their paths. */
const importLines = (entries: { name: string; path: string }[]) =>
  [...entries].sort((a, b) => (a.path < b.path ? -1 : 1)).map((e) => `import { ${e.name} } from '${e.path}';`);

/** A table's two regions: the imports of its entries, and its entries (two spaces in). */
type Regions = { readonly imports: string[]; readonly table: string[] };

function sourceTables(kinds: Kind[]): Map<string, Regions> {
  const perKind = (file: string, name: (k: string) => string) => ({
    imports: importLines(kinds.map((k) => ({ name: name(k.kind), path: `./${k.kind}/${file}.js` }))),
    table: kinds.map((k) => `  ${/-/.test(k.kind) ? `'${k.kind}'` : k.kind}: ${name(k.kind)},`),
  });
  const resolving = kinds
    .filter((k) => k.resolution)
    .map((k) => ({ name: `${camel(k.kind)}Resolution`, path: `./${k.kind}/resolution.js` }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return new Map<string, Regions>([
    [`${SOURCES}/registry.ts`, perKind('webhook', (k) => `${camel(k)}Source`)],
    [`${SOURCES}/source-settings.ts`, perKind('settings', (k) => `${camel(k)}SettingsKind`)],
    [`${SOURCES}/ops.entry.ts`, perKind('ops', (k) => `${upper(k)}_OPS`)],
    // In the order of their files: the worker finds a resolution by its event's own part, whatever the order.
    [`${SOURCES}/resolution.entry.ts`, { imports: importLines(resolving), table: resolving.map((r) => `  ${r.name},`) }],
  ]);
}

function standInTable(kinds: Kind[]): Regions {
  const withService = kinds.flatMap((k) => (k.standIn === undefined ? [] : [k.standIn]));
  return {
    imports: importLines(withService.map((s) => ({ name: `localStandIn as ${camel(s)}`, path: `./${s}/local.js` }))),
    table: withService.map((s) => `  ${camel(s)},`),
  };
}

/**
 * `text` with each region `// gen:senders <name>…` … `// gen:senders end` holding `regions[name]`; the
 * rest of the file is hand-written and kept. Undefined when a region's markers are missing.
 */
export function withRegions(text: string, regions: Regions): string | undefined {
  let out = text;
  for (const [name, lines] of Object.entries(regions) as [string, string[]][]) {
    const pattern = new RegExp(`^( *)(// gen:senders ${name}\\b[^\\n]*\\n)[\\s\\S]*?^ *// gen:senders end\\n`, 'm');
    if (!pattern.test(out)) return undefined;
    out = out.replace(
      pattern,
      (_, indent: string, open: string) => `${indent}${open}${lines.map((l) => `${l}\n`).join('')}${indent}// gen:senders end\n`,
    );
  }
  return out;
}

/** The tables' files as SENDER_KINDS and the kinds' folders give them, and what the kinds lack. */
export function generateSenders(root: string): Generated {
  const problems: string[] = [];
  const names = senderKinds(root);
  if (names.length === 0) problems.push(`${SOURCES}/senders.ts: SENDER_KINDS names no kind`);
  for (const name of names.filter((n, i) => names.indexOf(n) !== i)) problems.push(`${name}: listed twice in SENDER_KINDS`);
  const kinds = names.map((name) => readKind(root, name, problems));
  const files = new Map<string, string>();
  for (const [path, regions] of [...sourceTables(kinds), ['stand-ins/registry.ts', standInTable(kinds)] as const]) {
    const text = existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : '';
    const written = withRegions(text, regions);
    if (written === undefined) problems.push(`${path}: lacks its \`// gen:senders imports\` or \`// gen:senders table\` region`);
    else files.set(path, written);
  }
  return { files, problems };
}

/** The files whose text on disk differs from what the generator writes. */
export function staleFiles(root: string, generated: Generated): string[] {
  return [...generated.files].filter(([path, text]) => readFileSync(join(root, path), 'utf8') !== text).map(([p]) => p);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const generated = generateSenders(ROOT);
  for (const problem of generated.problems) console.error(problem);
  if (generated.problems.length > 0) process.exit(1);
  const stale = staleFiles(ROOT, generated);
  for (const path of stale) writeFileSync(join(ROOT, path), generated.files.get(path) ?? '');
  console.log(stale.length === 0 ? 'gen:senders: every table is up to date' : `gen:senders: wrote ${stale.join(', ')}`);
}
