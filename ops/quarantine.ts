import type { QuarantineEntry, QuarantineStore, QuarantineSummary } from '../shared/quarantine/index.js';
import { OpsError } from './errors.js';
import { formatJst } from '../shared/time/index.js';

/**
 * `npm run quarantine -- list | show <id> | replay <id> | replay --all`: the deliveries intake kept
 * because it could not read them. A replay sends the kept bytes and headers to the source's webhook
 * URL again, so it goes through the normal intake path (signature, parse, map, queue) with whatever
 * fix was deployed since; an entry that still fails stays quarantined with the new reason.
 */
export interface QuarantineTarget {
  store: QuarantineStore;
  /** The URL a source's webhooks are posted to (local intake, or the stage's API). */
  webhookUrl(source: string): string | undefined;
  close(): Promise<void>;
}

/** Headers that describe one hop, not the delivery; fetch sets its own. */
const HOP_HEADERS =
  /^(host|content-length|connection|keep-alive|transfer-encoding|accept-encoding|expect|upgrade|te|trailer|x-forwarded-.*|x-amzn-.*|forwarded|via)$/i;

/** One line per entry, from what the store keeps beside the body (list never inflates one). */
function summary(e: QuarantineSummary): string {
  const reason = `${e.reason.kind}: ${e.reason.message}`;
  const delivered = `${e.deliveries} deliver${e.deliveries === 1 ? 'y' : 'ies'}`;
  const seen =
    e.lastReceivedAt === e.firstReceivedAt
      ? `first ${formatJst(e.firstReceivedAt)}`
      : `first ${formatJst(e.firstReceivedAt)} last ${formatJst(e.lastReceivedAt)}`;
  const gone = e.redactedAt ? `  (body removed by ${e.redactedBy ?? 'a privacy request'})` : '  (body not kept)';
  const what = `${e.topic ?? '-'}  ${e.resource ?? '-'}${e.bodyKept ? '' : gone}`;
  const replay = e.state === 'replayed' ? `  -> ${e.replayResult ?? 'replayed'}` : '';
  return `${e.id}  ${e.state.padEnd(11)}  ${e.source}  ${what}  ${seen}  ${delivered}  ${reason}${replay}`;
}

function bodyText(body: Uint8Array): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  try {
    return { body: new TextDecoder('utf-8', { fatal: true }).decode(body), bodyEncoding: 'utf8' };
  } catch {
    return { body: Buffer.from(body).toString('base64'), bodyEncoding: 'base64' };
  }
}

export type ReplayResult = { ok: true; result: string } | { ok: false; message: string };

/** Posts one kept delivery through intake again and records what it answered. */
export async function replayEntry(target: QuarantineTarget, entry: QuarantineEntry): Promise<ReplayResult> {
  const url = target.webhookUrl(entry.source);
  if (url === undefined) return { ok: false, message: `no webhook URL for source ${entry.source}` };
  if (entry.body === undefined) return { ok: false, message: entry.bodyProblem ?? 'no body' };
  const headers = Object.fromEntries(Object.entries(entry.headers).filter(([name]) => !HOP_HEADERS.test(name)));
  let status: number;
  let answer: { status?: string; eventId?: string; reason?: string; error?: { kind?: string; message?: string } };
  try {
    const res = await fetch(url, { method: 'POST', headers, body: entry.body, signal: AbortSignal.timeout(15_000) });
    status = res.status;
    answer = (await res.json().catch(() => ({}))) as typeof answer;
  } catch (e) {
    return { ok: false, message: `could not reach ${url}: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (status === 202 && answer.status === 'accepted') {
    const result = `accepted ${answer.eventId ?? ''}`.trim();
    await target.store.markReplayed(entry.id, result);
    return { ok: true, result };
  }
  if (status === 200 && answer.status === 'ignored') {
    const result = `ignored: ${answer.reason ?? ''}`;
    await target.store.markReplayed(entry.id, result);
    return { ok: true, result };
  }
  if (status === 200 && answer.status === 'quarantined') {
    return { ok: false, message: `still quarantined: ${answer.reason ?? 'unreadable'}` };
  }
  return { ok: false, message: `intake answered ${status}${answer.error ? ` ${answer.error.kind}: ${answer.error.message}` : ''}` };
}

/** Runs one quarantine subcommand; returns the exit code (0 done, 1 not found or a replay failed). */
export async function quarantineCommand(
  args: string[],
  options: { all: boolean },
  target: QuarantineTarget,
  print: (line: string) => void,
): Promise<number> {
  const [sub, id, extra] = args;
  if (sub === 'list' && id === undefined) {
    const entries = await target.store.list();
    if (entries.length === 0) {
      print('the quarantine is empty');
      return 0;
    }
    for (const e of entries) print(summary(e));
    const waiting = entries.filter((e) => e.state === 'quarantined').length;
    const redacted = entries.filter((e) => e.state === 'redacted').length;
    print(`${waiting} quarantined, ${entries.length - waiting - redacted} replayed${redacted > 0 ? `, ${redacted} redacted` : ''}`);
    return 0;
  }
  if (sub === 'show' && id !== undefined && extra === undefined) {
    const entry = await target.store.get(id);
    if (!entry) {
      print(`no quarantined delivery ${id}`);
      return 1;
    }
    const { body, ttl: _ttl, ...rest } = entry;
    print(JSON.stringify({ ...rest, ...(body === undefined ? {} : bodyText(body)) }, null, 2));
    return 0;
  }
  if (sub === 'replay' && (options.all ? id === undefined : id !== undefined && extra === undefined)) {
    const ids = options.all
      ? (await target.store.list()).filter((e) => e.state === 'quarantined').map((e) => e.id)
      : id === undefined
        ? []
        : [id];
    let failed = 0;
    // One body in memory at a time, each read (inflated within the cap, checked) just before it is sent.
    for (const entryId of ids) {
      const entry = await target.store.get(entryId);
      if (!entry) {
        if (!options.all) {
          print(`no quarantined delivery ${entryId}`);
          return 1;
        }
        continue;
      }
      const outcome = await replayEntry(target, entry);
      if (outcome.ok) print(`${entry.id} replayed: ${outcome.result}`);
      else {
        failed++;
        print(`${entry.id} not replayed: ${outcome.message}`);
      }
    }
    if (options.all) print(`${ids.length - failed} of ${ids.length} replayed`);
    return failed === 0 ? 0 : 1;
  }
  throw new OpsError('invalid_arguments', 'quarantine takes list | show <id> | replay <id> | replay --all');
}
