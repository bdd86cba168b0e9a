import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { linkedEvent } from '../shared/customers/index.js';
import { isOpenApiError, type MemberDetail, type OpenApiClient } from '../shared/openapi/index.js';
import { type EventQueue, queueMessageFor } from '../shared/queue/index.js';
import type { SourceSet } from '../shared/sources/index.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { OpsError, unknownSourceError } from './errors.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';
import { workerQueue } from './worker-queue.js';

export const MEMBERS_USAGE = `usage:
  npm run members -- link --source <name> --file <csv> [--dry-run] [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  (the CSV's header is external_id,member_id: the shop's customer code and the member's id)`;

const HEADER = 'external_id,member_id';
const MAX_ROWS = 100_000;

export interface MembersHandle {
  openapi: Pick<OpenApiClient, 'getMember' | 'getMemberByExternalId' | 'updateMember'>;
  /** The worker's queue: a new link's earlier purchases are credited there, as after a link in the shop. */
  queue: EventQueue;
  sources: SourceSet | undefined;
  close(): Promise<void>;
}

export interface LinkRow {
  line: number;
  externalId: string;
  memberId: string;
}

export type RowResult = { kind: 'linked' | 'already' } | { kind: 'refused'; reason: string };

/** The CSV's rows (header `external_id,member_id`, exactly); a row that cannot be read is refused with its line. */
export function parseLinkCsv(text: string): { rows: LinkRow[]; unreadable: { line: number; reason: string }[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  if (lines[0]?.trim() !== HEADER) throw new OpsError('usage', `the file's first line must be exactly ${HEADER}`);
  if (lines.length - 1 > MAX_ROWS) throw new OpsError('usage', `at most ${MAX_ROWS} rows per file`);
  const rows: LinkRow[] = [];
  const unreadable: { line: number; reason: string }[] = [];
  for (const [i, raw] of lines.slice(1).entries()) {
    const line = i + 2;
    const cells = raw.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    const [externalId = '', memberId = ''] = cells;
    if (cells.length !== 2 || !/^[\x21-\x7e]{1,255}$/.test(externalId) || !/^[\x21-\x7e]{1,255}$/.test(memberId))
      unreadable.push({ line, reason: 'not two values external_id,member_id (printable, no spaces)' });
    else rows.push({ line, externalId, memberId });
  }
  return { rows, unreadable };
}

const notFound = (e: unknown) => isOpenApiError(e) && e.kind === 'member_not_found';

/**
 * Attaches one shop customer code to its member, exactly once: already attached counts as such; an
 * unknown member, a member holding another code, or a code another member holds is refused (nothing
 * changes). A new link queues the crediting of the code's earlier purchases that found no member for the
 * worker, as a Shopify link does: crediting here would judge the worker's leases by this machine's clock.
 */
export async function linkRow(
  handle: MembersHandle,
  o: { source: string; externalKey: string; retroCreditDays: number; dryRun: boolean },
  row: LinkRow,
): Promise<RowResult> {
  let member: MemberDetail;
  try {
    member = await handle.openapi.getMember(row.memberId);
  } catch (e) {
    if (notFound(e)) return { kind: 'refused', reason: 'unknown member' };
    throw e;
  }
  const held = member.external_ids?.[o.externalKey];
  if (held === row.externalId) return { kind: 'already' };
  if (held) return { kind: 'refused', reason: `the member already has ${o.externalKey} code ${held}` };
  let holder: MemberDetail | undefined;
  try {
    holder = await handle.openapi.getMemberByExternalId(o.externalKey, row.externalId);
  } catch (e) {
    if (!notFound(e)) throw e;
  }
  if (holder && holder.id !== member.id) return { kind: 'refused', reason: 'the code is held by another member' };
  if (o.dryRun) return { kind: 'linked' };
  const updated = await handle.openapi.updateMember(member.id, {
    external_ids: { ...(member.external_ids ?? {}), [o.externalKey]: row.externalId },
  });
  // The service ignores an external key its client does not have configured: nothing was linked then.
  if (updated.external_ids?.[o.externalKey] !== row.externalId)
    return { kind: 'refused', reason: `the membership service did not keep it: is the external key ${o.externalKey} configured?` };
  const linked = linkedEvent({
    source: o.source,
    externalKey: o.externalKey,
    customerId: row.externalId,
    memberId: member.id,
    retroCreditDays: o.retroCreditDays,
    nowMs: Date.now(),
  });
  await handle.queue.send(queueMessageFor(linked));
  return { kind: 'linked' };
}

async function run(
  argv: string[],
  out: CommandOutput,
  connect: (stage: ReturnType<typeof stageOf>) => Promise<MembersHandle>,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      source: { type: 'string' },
      file: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    out.print(MEMBERS_USAGE);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (action !== 'link' || extra.length > 0) throw new OpsError('usage', 'members takes link');
  if (values.source === undefined || values.file === undefined) throw new OpsError('usage', '--source and --file are required');
  const stage = stageOf(values);
  let text: string;
  try {
    text = await readFile(values.file, 'utf8');
  } catch {
    throw new OpsError('usage', `cannot read ${values.file}`);
  }
  const { rows, unreadable } = parseLinkCsv(text);
  const handle = await connect(stage);
  try {
    const configured = handle.sources?.get(values.source);
    if (handle.sources !== undefined && configured === undefined) throw unknownSourceError(values.source, handle.sources.keys());
    const linking = configured?.customerLinking?.();
    const o = {
      source: values.source,
      externalKey: linking?.externalKey ?? values.source,
      retroCreditDays: linking?.retroCreditDays ?? 30,
      dryRun: values['dry-run'],
    };
    const tally = { linked: 0, already: 0, refused: unreadable.length };
    for (const u of unreadable) out.print(`line ${u.line}: refused: ${u.reason}`);
    for (const row of rows) {
      const result = await linkRow(handle, o, row);
      if (result.kind === 'refused') {
        tally.refused += 1;
        out.print(`line ${row.line}: ${row.externalId} -> ${row.memberId}: refused: ${result.reason}`);
      } else tally[result.kind] += 1;
    }
    if (tally.linked > 0 && !o.dryRun)
      out.print(
        `queued for the worker: the earlier purchases of the ${tally.linked} code(s) linked now, credited once each ` +
          `(npm run ledger -- ${o.source} --customer <code> lists those still waiting)`,
      );
    out.print(`members: rows=${rows.length + unreadable.length} linked=${tally.linked} already=${tally.already} refused=${tally.refused}`);
    return tally.refused > 0 ? 1 : 0;
  } finally {
    await handle.close();
  }
}

/**
 * `npm run members -- link --source S --file FILE [--dry-run] [--stage S]`: attaches shop customer codes
 * (Smaregi's customerCode) to members from a CSV, one line per refused row, last line
 * `members: rows=N linked=L already=A refused=R`. Exit code: 0 all linked or already, 1 some refused, 2
 * could not run.
 */
export async function membersCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  given: CommandOutput = consoleOutput,
  connect?: (stage: ReturnType<typeof stageOf>) => Promise<MembersHandle>,
): Promise<number> {
  // Every error's message says it all (a row of the file, a source not configured, the service's answer).
  const failures = { usage: MEMBERS_USAGE, name: 'members', plain: () => true };
  return runCommand(failures, given, (out) => run(argv, out, connect ?? ((stage) => defaultConnect(env, stage))));
}

async function defaultConnect(env: NodeJS.ProcessEnv, stage: ReturnType<typeof stageOf>): Promise<MembersHandle> {
  const target =
    stage !== undefined
      ? await (await import('./aws.js')).connectToStage(stage)
      : await (await import('./local-stack.js')).localHandle(env);
  return { openapi: target.openapi, sources: target.sources, queue: await workerQueue(target), close: () => target.close() };
}
