import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { minWebhookSecretChars, SECRET_CACHE_TTL_MS } from '../shared/config/index.js';
import type { RotationOutcome, RotationStep, RotationTarget, SecretStore } from '../shared/secret-rotation/index.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { OpsError, unknownSourceError } from './errors.js';
import type { StageOptions } from './aws.js';

export const ROTATE_USAGE = `usage:
  npm run rotate -- --source <source> [--secret-file <file>] [--wait <seconds>] [--stage <stage>]   (new secret on stdin or in the file)
  npm run rotate -- --source <source> --retire [--stage <stage>]
  npm run rotate -- --openapi [--secret-file <file>] [--wait <seconds>] [--stage <stage>]
  npm run rotate -- --openapi --retire [--stage <stage>]`;

/** What the command needs: stdin for the new secret, and how it waits (tests pass their own). */
export interface RotateIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  sleep: (ms: number) => Promise<void>;
}

const defaultIo: RotateIo = { stdin: process.stdin, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** One secret read from a file or stdin (never argv: it would land in the shell history and `ps`). */
async function newSecret(file: string | undefined, stdin: RotateIo['stdin']): Promise<string> {
  let text: string;
  if (file !== undefined) {
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new OpsError('usage', `cannot read --secret-file ${file}`);
    }
  } else {
    if (stdin.isTTY) throw new OpsError('usage', 'give the new secret on stdin (a pipe or < file) or with --secret-file');
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    text = Buffer.concat(chunks).toString('utf8');
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '' || /[\r\n]/.test(secret)) throw new OpsError('usage', 'the new secret must be one non-empty line');
  return secret;
}

/** Where one rotation step runs: a stage's Secrets Manager, or the running `npm start`. */
interface RotationSite {
  rotate(target: RotationTarget, step: RotationStep, next: string | undefined): Promise<RotationOutcome>;
  /** How long the functions may keep what they read (0: they read at every use). */
  cacheMs: number;
  /** The sources configured there, to name and check `--source`. */
  sourceKind(source: string): string | undefined;
  sourceNames: string[];
}

/** The stage's secrets in Secrets Manager (names from infra/stages/<stage>.json, as the stack names them). */
async function stageSite(options: StageOptions): Promise<RotationSite> {
  const [{ loadStageConfig, stageSources, webhookSecretName }, sm, { rotateSecret }] = await Promise.all([
    import('../infra/config/index.js'),
    import('@aws-sdk/client-secrets-manager'),
    import('../shared/secret-rotation/index.js'),
  ]);
  const stage = loadStageConfig(options.infraDir ?? join(process.cwd(), 'infra'), options.stage);
  const sources = stageSources(stage);
  const client = new sm.SecretsManagerClient({ region: stage.region });
  const store: SecretStore = {
    async read(secretId) {
      const out = await client.send(new sm.GetSecretValueCommand({ SecretId: secretId }));
      if (typeof out.SecretString !== 'string') throw new OpsError('aws_target', `secret ${secretId} holds no SecretString`);
      return out.SecretString;
    },
    // A new version (AWSCURRENT); the one before stays as AWSPREVIOUS.
    write: async (secretId, text) => void (await client.send(new sm.PutSecretValueCommand({ SecretId: secretId, SecretString: text }))),
  };
  return {
    cacheMs: SECRET_CACHE_TTL_MS,
    sourceKind: (s) => sources.get(s)?.kind,
    sourceNames: [...sources.keys()],
    rotate: (target, step, next) =>
      rotateSecret(
        store,
        target.kind === 'openapi' ? stage.openApiSecretName : webhookSecretName(stage, target.source),
        target,
        step,
        next === undefined ? {} : { next },
      ),
  };
}

/** The running `npm start`: its store is changed through POST /__local/secrets/rotate (local/secret-store.ts). */
async function localSite(env: NodeJS.ProcessEnv): Promise<RotationSite> {
  const [{ resolveLocalConfig }, { findRunningStack }, { loadSources }] = await Promise.all([
    import('../kit/local-stack/config.js'),
    import('../kit/local-stack/connect.js'),
    import('../shared/sources/index.js'),
  ]);
  const found = await findRunningStack(await resolveLocalConfig(env));
  if (found.status !== 'up')
    throw new OpsError('usage', `no local stack answers at ${found.intakeUrl}: start it with npm start (or pass --stage)`);
  const sources = loadSources(found.info?.sourcesConfig || undefined);
  return {
    cacheMs: 0,
    sourceKind: (s) => sources.get(s)?.kind,
    sourceNames: [...sources.keys()],
    async rotate(target, step, next) {
      const body = target.kind === 'openapi' ? { target: 'openapi', step } : { target: 'webhook', source: target.source, step };
      const res = await fetch(`${found.intakeUrl}/__local/secrets/rotate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(next === undefined ? body : { ...body, secret: next }),
        signal: AbortSignal.timeout(15_000),
      });
      const answer = (await res.json().catch(() => ({}))) as Partial<RotationOutcome> & { error?: string };
      if (res.status !== 200)
        throw new OpsError('invalid_arguments', answer.error ?? `the local stack answered ${res.status}: is it current (npm start)?`);
      return { secretId: String(answer.secretId), changed: answer.changed === true, count: Number(answer.count) };
    },
  };
}

interface Parsed {
  target: RotationTarget;
  step: RotationStep;
  waitMs: number | undefined;
  secretFile: string | undefined;
}

function parse(values: { source?: string; openapi: boolean; retire: boolean; wait?: string; 'secret-file'?: string }, rest: string[]) {
  if (rest.length > 0) throw new OpsError('usage', 'rotate takes no arguments (the new secret comes on stdin or with --secret-file)');
  if ((values.source === undefined) === !values.openapi) throw new OpsError('usage', 'name what to rotate: --source <source> or --openapi');
  if (values.retire && (values.wait !== undefined || values['secret-file'] !== undefined))
    throw new OpsError('usage', '--retire takes no new secret and no --wait');
  const wait = values.wait === undefined ? undefined : Number(values.wait);
  if (wait !== undefined && (!Number.isInteger(wait) || wait < 0 || wait > 3600))
    throw new OpsError('usage', '--wait is a whole number of seconds, 0 to 3600');
  return {
    source: values.source,
    step: values.retire ? 'retire' : 'add',
    waitMs: wait === undefined ? undefined : wait * 1000,
    secretFile: values['secret-file'],
  } as const;
}

async function run(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void, io: RotateIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      // The stage file names the secrets: no --stack or --outputs needed.
      stage: { type: 'string' },
      source: { type: 'string' },
      openapi: { type: 'boolean', default: false },
      retire: { type: 'boolean', default: false },
      wait: { type: 'string' },
      'secret-file': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    print(ROTATE_USAGE);
    return 0;
  }
  const p = parse(values, positionals);
  const site = values.stage !== undefined ? await stageSite({ stage: values.stage }) : await localSite(env);
  let target: RotationTarget = { kind: 'openapi' };
  if (p.source !== undefined) {
    const kind = site.sourceKind(p.source);
    if (kind === undefined) throw unknownSourceError(p.source, site.sourceNames);
    target = { kind: 'webhook', source: p.source, minLength: minWebhookSecretChars(kind) };
  }
  const name = target.kind === 'openapi' ? 'openapi' : target.source;
  const next = p.step === 'add' ? await newSecret(p.secretFile, io.stdin) : undefined;
  const outcome = await site.rotate(target, p.step, next);
  const parsed: Parsed = { target, step: p.step, waitMs: p.waitMs, secretFile: p.secretFile };
  return report(parsed, outcome, site, name, print, io);
}

/** What was written, the wait for the functions' caches, and what the operator does next. Never a value. */
async function report(p: Parsed, o: RotationOutcome, site: RotationSite, name: string, print: (line: string) => void, io: RotateIo) {
  const openapi = p.target.kind === 'openapi';
  if (p.step === 'retire') {
    print(o.changed ? `wrote ${o.secretId}: the old secret retired` : `${o.secretId} holds one secret: nothing to retire`);
    print(`rotate: ${name} retired secrets=${o.count}`);
    return 0;
  }
  if (!o.changed) print(`${o.secretId} already holds the new secret: nothing written`);
  else if (openapi)
    print(`wrote ${o.secretId}: next_client_secret set (the worker tries it when the token endpoint refuses client_secret)`);
  else print(`wrote ${o.secretId}: ${o.count} secrets, the new one first`);
  const waitMs = p.waitMs ?? site.cacheMs;
  if (site.cacheMs === 0) print('the local functions read the store at every use: nothing to wait for');
  else {
    print(`waiting ${waitMs / 1000} s: the functions keep a secret they read up to ${site.cacheMs / 1000} s`);
    await io.sleep(waitMs);
  }
  print(
    openapi
      ? 'next: have the membership service switch this system to the new client secret, then run again with --retire'
      : 'next: switch the sender to the new secret; when no delivery is signed with the old one, run again with --retire',
  );
  print(`rotate: ${name} added secrets=${o.count}`);
  return 0;
}

/**
 * `npm run rotate`: a webhook source's signing secret or the Open API client secret, rotated in two
 * runs (docs/deploy.md §3, §5). Exit 0 done, 2 could not run (nothing written). Secrets come from
 * stdin or a file and are never printed.
 */
export async function rotateCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  given: CommandOutput = consoleOutput,
  io: RotateIo = defaultIo,
): Promise<number> {
  return runCommand({ usage: ROTATE_USAGE }, given, (out) => run(argv, env, out.print, io));
}
