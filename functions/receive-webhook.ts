import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ENV, minWebhookSecretChars, webhookSecretsFromEnv } from '../shared/config/index.js';
import {
  type DeliveryRecorder,
  deliveryMetricsFromEnv,
  type IntakeAnswer,
  type IntakeDeps,
  type IntakeRequest,
  maxBodyBytesFromEnv,
  quarantineFromEnv,
  queueUrlFromEnv,
  receiveWebhook,
  replayWindowDaysFromEnv,
} from '../shared/intake/index.js';
import { jsonLoggerFromEnv } from '../shared/logging/index.js';
import { createSqsQueue } from '../shared/queue/index.js';
import { loadSources } from '../shared/sources/index.js';

/**
 * receive-webhook: API Gateway HTTP API (payload v2) -> verify, normalise, queue. Routes
 * POST /webhooks/shopify and POST /webhooks/pos (any configured source name). Never calls the Open API.
 * Imports go through each module's index: package.json declares the project free of import side
 * effects (`sideEffects: false`), so esbuild bundles, and module load evaluates, only what intake uses.
 * Neither AWS SDK client is evaluated at load: the SQS queue and the Secrets Manager reader import
 * theirs on first use. Intake writes nothing to DynamoDB for an accepted delivery: what it knows of it
 * (id, topic, when it came) travels in the queue message, and the worker's ledger writes file it in the
 * order's activity (shared/activity/carry.ts).
 */

export type ReceiveWebhookDeps = IntakeDeps & {
  /** Counts each delivery (accepted / ignored / refused, by source and kind); EMF on stdout in Lambda. */
  recordDelivery?: DeliveryRecorder;
};
export type ReceiveWebhookHandler = (event: APIGatewayProxyEventV2, context?: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The source a request is for: `source` path parameter, else the last segment of the path or route. */
function sourceOf(event: APIGatewayProxyEventV2): string | undefined {
  const lastSegment = (path: string | undefined) =>
    path
      ?.split('/')
      .filter((s) => s !== '')
      .pop();
  const fromRoute = lastSegment(event.routeKey?.split(' ').pop());
  return event.pathParameters?.source ?? lastSegment(event.rawPath) ?? (fromRoute && !fromRoute.startsWith('{') ? fromRoute : undefined);
}

function toRequest(event: APIGatewayProxyEventV2): IntakeRequest {
  return {
    source: sourceOf(event),
    method: event.requestContext?.http?.method ?? 'POST',
    headers: event.headers ?? {},
    body: event.body,
    isBase64Encoded: event.isBase64Encoded ?? false,
  };
}

function reply(statusCode: number, answer: IntakeAnswer | { error: { kind: string; message: string } }): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify(answer),
  };
}

export function makeHandler(deps: ReceiveWebhookDeps): ReceiveWebhookHandler {
  return async (event) => {
    try {
      const request = toRequest(event);
      const response = await receiveWebhook(request, deps);
      deps.recordDelivery?.(request.source, response);
      return reply(response.statusCode, response.answer);
    } catch (e) {
      deps.logger?.error('unexpected intake failure', { error: e instanceof Error ? e.name : 'unknown' });
      return reply(500, { error: { kind: 'internal', message: 'try again later' } });
    }
  };
}

export function depsFromEnv(env: NodeJS.ProcessEnv, overrides: Partial<ReceiveWebhookDeps> = {}): ReceiveWebhookDeps {
  const sources = overrides.sources ?? loadSources(env[ENV.SOURCES_CONFIG]);
  const logger = overrides.logger ?? jsonLoggerFromEnv(env);
  return {
    sources,
    secrets: overrides.secrets ?? webhookSecretsFromEnv(env, { minLength: (name) => minWebhookSecretChars(sources.get(name)?.kind) }),
    queue: overrides.queue ?? createSqsQueue({ queueUrl: queueUrlFromEnv(env) }),
    now: overrides.now ?? Date.now,
    maxBodyBytes: overrides.maxBodyBytes ?? maxBodyBytesFromEnv(env),
    logger,
    replayWindowDays: overrides.replayWindowDays ?? replayWindowDaysFromEnv(env),
    ...quarantineFromEnv(env),
    ...(overrides.quarantine ? { quarantine: overrides.quarantine } : {}),
    ...(overrides.countQuarantined ? { countQuarantined: overrides.countQuarantined } : {}),
    recordDelivery: overrides.recordDelivery ?? deliveryMetricsFromEnv(env, sources.keys()),
  };
}

let lambdaHandler: ReceiveWebhookHandler | undefined;

/** The Lambda entry point: dependencies are built from process.env on the first invocation. */
export const handler: ReceiveWebhookHandler = async (event, context) => {
  if (!lambdaHandler) {
    try {
      lambdaHandler = makeHandler(depsFromEnv(process.env));
    } catch (e) {
      // A configuration error: named in the log (never a secret), generic to the sender, who retries.
      console.error(
        JSON.stringify({ level: 'ERROR', message: 'receive-webhook is misconfigured', error: e instanceof Error ? e.message : 'unknown' }),
      );
      return reply(500, { error: { kind: 'not_configured', message: 'the webhook endpoint is not configured' } });
    }
  }
  return lambdaHandler(event, context);
};
