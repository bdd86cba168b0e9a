import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * One owner per table (issue 41): only shared/ledger issues DynamoDB commands against the ledger table;
 * the quarantine keeps its own table and store (shared/quarantine), and shared/dynamodb is the SDK as
 * the two use it. Everything else takes the ledger's stores. Checked here on the imports: a file
 * outside those three that takes a DynamoDB command class (`...Command`) or `scanKeyPrefix` (it sends a
 * Scan) from the SDK's DynamoDB packages or from shared/dynamodb, or loads those packages dynamically, is
 * reported. Building a client (`documentClientFromEnv`) and type-only imports are fine. The harnesses
 * (test/, chaos/, bench/) are not checked: they read the table on their own to check what the code wrote,
 * and the bench times a hand-written floor on its own items.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const OWNERS = ['shared/ledger/', 'shared/quarantine/', 'shared/dynamodb/'];
const HARNESSES = ['test/', 'chaos/', 'bench/'];
const SDK = new Set(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb']);

const forbidden = (name: string) => /Command$/.test(name) || name === 'scanKeyPrefix';

/** Whether a specifier, imported from `file`, is the SDK's DynamoDB packages or shared/dynamodb. */
function isDynamoModule(file: string, specifier: string): boolean {
  if (SDK.has(specifier)) return true;
  if (!specifier.startsWith('.')) return false;
  return posix.normalize(posix.join(posix.dirname(file), specifier)).startsWith('shared/dynamodb/');
}

/** The value names of a `{ a, type B, c as d }` list (type-only ones left out). */
function valueNames(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0 && !part.startsWith('type '))
    .map((part) => part.split(/\s+as\s+/)[0]?.trim() ?? '');
}

/** What `file` (repository-relative) takes from DynamoDB that only the table owners may: one line each. */
function tableCommandUses(file: string, text: string): string[] {
  const found: string[] = [];
  const staticImport = /(import|export)\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+\w+|\w+)\s+from\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(staticImport)) {
    const [, , typeOnly, what = '', specifier = ''] = m;
    if (typeOnly || !isDynamoModule(file, specifier)) continue;
    if (what.startsWith('{')) {
      for (const name of valueNames(what.slice(1, -1))) if (forbidden(name)) found.push(`${file}: ${name} from ${specifier}`);
    } else if (SDK.has(specifier)) {
      found.push(`${file}: the whole of ${specifier}`);
    }
  }
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const specifier = m[1] ?? '';
    if (SDK.has(specifier)) found.push(`${file}: import('${specifier}')`);
  }
  // What a dynamic import of shared/dynamodb is used for: `{ a, b } = await import(...)` or `(await import(...)).a`.
  const destructured = /\{([^}]*)\}\s*=\s*await\s+import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(destructured)) {
    if (!isDynamoModule(file, m[2] ?? '')) continue;
    for (const name of valueNames(m[1] ?? '')) if (forbidden(name)) found.push(`${file}: ${name} from import('${m[2]}')`);
  }
  for (const m of text.matchAll(/\(\s*await\s+import\(\s*['"]([^'"]+)['"]\s*\)\s*\)\s*\.(\w+)/g)) {
    if (isDynamoModule(file, m[1] ?? '') && forbidden(m[2] ?? '')) found.push(`${file}: ${m[2]} from import('${m[1]}')`);
  }
  return found;
}

function checkedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.tsx', '*.mts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((f) => f.length > 0 && !f.startsWith('node_modules/'))
    .filter((f) => ![...OWNERS, ...HARNESSES].some((dir) => f.startsWith(dir)));
}

describe('the ledger table has one owner', () => {
  it('no file outside shared/ledger, shared/quarantine and shared/dynamodb takes a DynamoDB command', () => {
    const uses = checkedFiles().flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(resolve(ROOT, file), 'utf8');
      } catch {
        return []; // listed but deleted in the working tree
      }
      return tableCommandUses(file, text);
    });
    expect(uses).toEqual([]);
  });

  it('reports a command class or scanKeyPrefix taken from shared/dynamodb or the SDK, statically or dynamically', () => {
    const text = [
      "import { GetCommand, isConditionFailure, type PutCommand } from '../dynamodb/index.js';",
      "import { ScanCommand as Scan } from '@aws-sdk/lib-dynamodb';",
      "export { scanKeyPrefix } from '../dynamodb/index.js';",
      "const commands = () => import('@aws-sdk/lib-dynamodb');",
      "const { UpdateCommand } = await import('../dynamodb/index.js');",
      "const d = (await import('../dynamodb/index.js')).DeleteCommand;",
    ].join('\n');
    expect(tableCommandUses('shared/privacy/x.ts', text)).toEqual([
      'shared/privacy/x.ts: GetCommand from ../dynamodb/index.js',
      'shared/privacy/x.ts: ScanCommand from @aws-sdk/lib-dynamodb',
      'shared/privacy/x.ts: scanKeyPrefix from ../dynamodb/index.js',
      "shared/privacy/x.ts: import('@aws-sdk/lib-dynamodb')",
      "shared/privacy/x.ts: UpdateCommand from import('../dynamodb/index.js')",
      "shared/privacy/x.ts: DeleteCommand from import('../dynamodb/index.js')",
    ]);
  });

  it('lets a file build a client and name the client type', () => {
    const text = [
      "import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      "import { documentClientFromEnv } from '../../shared/dynamodb/index.js';",
      "const made = (await import('../dynamodb/index.js')).documentClientFromEnv(env);",
      "import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';",
    ].join('\n');
    expect(tableCommandUses('ops/x.ts', text)).toEqual([]);
  });
});
