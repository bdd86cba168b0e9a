import { LOCAL_ENV, type LocalConfig, resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, findRunningStack, type LocalStackHandle } from '../kit/local-stack/connect.js';
import { type CommandOutput, consoleOutput } from '../ops/output.js';
import { defaultSquareNotificationUrl } from '../local/square.js';
import { handleOf } from '../local/handle.js';
import { startLocalStack } from '../local/stack.js';
import { runDemo } from './run.js';
import { demoCampaign, LATER_SOURCE } from './provisional.js';
import { withSourceDefaults } from '../stand-ins/sources-config.js';

/** How long the demo waits for an `npm start` that answers /healthz 503 (still starting). */
const STARTING_WAIT_MS = 30_000;

/** What to pass when the stack refused the demo's signatures: the variable, never the secret. */
function refusedHint(intakeUrl: string, source: string, config: LocalConfig): string {
  const [label, variable, defaulted] =
    source === 'pos'
      ? ['POS', LOCAL_ENV.POS_WEBHOOK_SECRETS, config.defaulted.pos]
      : source === 'square'
        ? ['Square', `${LOCAL_ENV.SQUARE_WEBHOOK_SIGNATURE_KEY} (and ${LOCAL_ENV.SQUARE_NOTIFICATION_URL})`, config.defaulted.square]
        : ['Shopify', LOCAL_ENV.SHOPIFY_WEBHOOK_SECRET, config.defaulted.shopify];
  const used = defaulted ? `the demo default, ${variable} not being set here` : `the first secret in ${variable}`;
  return (
    `demo: the stack at ${intakeUrl} refused the demo's ${label} signatures (401; signed with ${used}): ` +
    `pass npm run demo the same ${variable} as npm start`
  );
}

/**
 * `npm run demo`: uses the `npm start` answering /healthz on PORT (reaching its emulator and dynalite
 * where it says they are), otherwise starts a stack on free ports for the run. Exit code: 0 when every
 * event did what it should, 1 when one did not, 2 when the demo could not run.
 */
export async function demoCommand(env: NodeJS.ProcessEnv, out: CommandOutput = consoleOutput): Promise<number> {
  let handle: LocalStackHandle | undefined;
  let stopStack = async () => {};
  try {
    let config = await resolveLocalConfig(env);
    const found = await findRunningStack(config, { waitMs: STARTING_WAIT_MS });
    if (found.status === 'up') {
      out.print(`demo: using the local stack at ${found.intakeUrl} (npm start)`);
      config = await configFollowingStack(config, found.info, env);
      handle = connectToRunningStack(config, found.info);
      out.print(
        found.info === undefined
          ? `demo: it does not say where its parts are; using EMULATOR_PORT and DYNAMODB_PORT: emulator ${handle.emulatorUrl}, DynamoDB ${handle.dynamodbUrl}`
          : `demo: its emulator at ${handle.emulatorUrl}, DynamoDB at ${handle.dynamodbUrl} (table ${handle.tableName})`,
      );
    } else {
      out.print(
        config.ports.intake === 0
          ? 'demo: PORT=0 names no running stack; starting one on free ports for this run'
          : `demo: no local stack answers at ${found.intakeUrl} (PORT); starting one on free ports for this run`,
      );
      const stack = await startLocalStack({
        emulatorConfig: config.emulatorConfig,
        webhookSecrets: config.webhookSecrets,
        // The demo's own stack shows the till's points spent off the membership balance unless told otherwise.
        smaregi: { ...config.smaregi, tillPoints: config.smaregi.tillPoints ?? 'membership' },
        ...(config.squareNotificationUrl ? { squareNotificationUrl: config.squareNotificationUrl } : {}),
        tableName: config.tableName,
        // Codes valid 10 s and swept without a grace: the demo shows an unused one coming back (unless this environment says otherwise).
        // And a second Shopify source that earns at fulfilment, under a 2× campaign (demo/provisional.ts).
        env: {
          SHOPIFY_REDEMPTION_VALID_SECONDS: '10',
          SHOPIFY_REDEMPTION_GRACE_SECONDS: '0',
          CAMPAIGNS_CONFIG: JSON.stringify([demoCampaign(Date.now())]),
          SHOPIFY_LATER_WEBHOOK_SECRETS: config.webhookSecrets.shopify[0] ?? '',
          ...env,
          SOURCES_CONFIG: withSourceDefaults(env.SOURCES_CONFIG, LATER_SOURCE, { kind: 'shopify', earnAfter: 'fulfilled' }),
        },
      });
      stopStack = () => stack.close();
      handle = handleOf(stack);
    }

    const connected = handle;
    if (connected.smaregi && connected.smaregi.tillPoints !== 'membership')
      out.print(
        `demo: skipping the till sale paid partly in points: the stack's Smaregi tillPoints is ignore (start it with ${LOCAL_ENV.SMAREGI_TILL_POINTS}=membership to see it)`,
      );
    const result = await runDemo(
      {
        ...connected,
        redemptionValidSeconds: redeemingValidity(connected.sources),
        laterSource: connected.sources?.has(LATER_SOURCE) === true,
        emulatorConfig: config.emulatorConfig,
        secrets: {
          shopify: config.webhookSecrets.shopify[0] ?? '',
          pos: config.webhookSecrets.pos[0] ?? '',
          square: {
            key: config.webhookSecrets.square[0] ?? '',
            notificationUrl: config.squareNotificationUrl ?? defaultSquareNotificationUrl(connected.intakeUrl),
          },
          ...(connected.smaregi
            ? {
                smaregi: {
                  url: connected.smaregi.url,
                  contractId: connected.smaregi.contractId,
                  header: config.smaregi.webhookHeader,
                  secret: config.smaregi.webhookSecret,
                  tillPoints: connected.smaregi.tillPoints,
                },
              }
            : {}),
        },
      },
      out.print,
    );
    if (found.status === 'up') for (const source of result.signatureRefused) out.print(refusedHint(found.intakeUrl, source, config));
    return result.ok ? 0 : 1;
  } catch (e) {
    out.printError(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  } finally {
    await handle?.close();
    await stopStack();
  }
}

/** The validity of the stack's Shopify redemptions, when its Shopify source redeems. */
function redeemingValidity(sources: LocalStackHandle['sources']): number | undefined {
  const redemption = sources?.get('shopify')?.customerLinking?.().redemption;
  // An unused code comes back at the first sweep after its end and the grace that follows it.
  return redemption?.enabled ? redemption.validSeconds + redemption.graceSeconds : undefined;
}
