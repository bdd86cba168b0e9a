import { createDocumentClient } from '../shared/ledger/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import { ENV, processingSettingsFromEnv } from '../shared/config/index.js';
import { loadSources } from '../shared/sources/index.js';
import { LOCAL_AWS } from '../kit/local-stack/info.js';
import type { LocalStackHandle } from '../kit/local-stack/connect.js';
import { standInInfo } from '../stand-ins/registry.js';
import { upstreamBudgetOn } from '../shared/upstream/index.js';
import { listDeadLetter } from './admin.js';
import type { LocalStack } from './stack.js';

/** The same handles on a stack started in this process (its own Open API client; the stack's ledger). */
export function handleOf(stack: LocalStack): LocalStackHandle {
  const documentClient = createDocumentClient({ endpoint: stack.urls.dynamodb, ...LOCAL_AWS });
  const processing = processingSettingsFromEnv(stack.handlerEnv);
  // An operator's client draws from the stack's one budget, beside its workers.
  const openapi = createOpenApiClient({
    credentials: staticCredentials(stack.openApi),
    ...upstreamBudgetOn({ client: documentClient, tableName: stack.tableName }, processing.upstreamBudgetPerMinute),
  });
  return {
    intakeUrl: stack.urls.intake,
    emulatorUrl: stack.urls.emulator,
    dynamodbUrl: stack.urls.dynamodb,
    tableName: stack.tableName,
    documentClient,
    openapi,
    ledger: stack.ledger,
    processing,
    sources: loadSources(stack.handlerEnv[ENV.SOURCES_CONFIG]),
    queueStats: async () => stack.queue.stats(),
    deadLetters: async () => stack.queue.deadLetters().map(listDeadLetter),
    redrive: async () => stack.queue.redrive(),
    waitForIdle: (timeoutMs = 30_000) => stack.queue.waitForIdle({ timeoutMs }),
    // Each stand-in's entry, as GET /__local/info gives it to a handle that connects (the Square Orders
    // stand-in with its source's basis, Smaregi's with its contract and tillPoints).
    ...standInInfo(stack.standIns, stack.handlerEnv, ENV.SOURCES_CONFIG),
    async close() {
      await openapi.close();
      documentClient.destroy();
    },
  };
}
