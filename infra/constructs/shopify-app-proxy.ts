import { SecretValue, type Stack, Validations } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { appProxyEnvironment, redeemingShopify, type StageConfig } from '../config/index.js';
import { REDEMPTION_TOKEN_SCOPES } from '../../shared/sources/shopify/index.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';
import { grantCustomerIndexQuery, grantLedgerKeys, grantUpstreamBudget, LEDGER_ITEM_ACTIONS } from './ledger-table.js';
import { FUNCTION_LEDGER_KEYS } from '../../shared/ledger/index.js';
import type { WebhookApi } from './webhook-api.js';

/** The route the Shopify App Proxy forwards the storefront's link request to (proxy URL `<api>/proxy/shopify`). */
export const APP_PROXY_LINK_PATH = '/proxy/shopify/link';
/** The redemption routes (docs/redemption.md), when the Shopify source redeems. */
export const APP_PROXY_POINTS_PATH = '/proxy/shopify/points';
export const APP_PROXY_REDEEM_PATH = '/proxy/shopify/redeem';

export type ShopifyAppProxyProps = FunctionLogs & {
  config: StageConfig;
  api: WebhookApi;
  queue: IQueue;
  /** The Shopify source's webhook secret: the app's secret, which signs App Proxy requests too. */
  shopifySecret: ISecret;
  openApiSecret: ISecret;
  /** The ledger table: the upstream budget's counters are in it, and redemptions keep their records in it. */
  table: ITable;
};

/**
 * `GET|POST /proxy/shopify/link` -> shopify-app-proxy: links a logged-in Shopify customer to a member
 * in two steps, a confirmation (GET) and the confirmed link (POST) (docs/customers.md). Reads the Shopify secret and the Open API secret, sends to the event queue
 * (crediting earlier purchases); nothing else. When the Shopify source redeems (docs/redemption.md), also
 * `GET /proxy/shopify/points` and `POST /proxy/shopify/redeem`, with the redemption records of the ledger
 * table and an Admin API token of its own with discount scopes only (created empty here).
 */
export class ShopifyAppProxy extends Construct {
  readonly function: BundledFunction;
  /** GET (the confirmation) and POST (the confirmed link), one function. */
  readonly routes: HttpRoute[];

  constructor(scope: Construct, id: string, props: ShopifyAppProxyProps) {
    super(scope, id);
    const { config } = props;
    const redeeming = redeemingShopify(config);
    // Its own token, discount scopes only: the reconciliation's (read_orders) stays with the schedules.
    const adminToken = redeeming && discountsTokenSecret(this, redeeming.discountsTokenSecretName, props.removalPolicy);
    this.function = new BundledFunction(this, 'Function', {
      code: 'shopifyAppProxy',
      description: 'Links a logged-in Shopify customer to a member through the App Proxy',
      ...config.receiver,
      // A redemption may wait for the Admin API (three attempts at the code): within API Gateway's 30 s.
      ...(redeeming ? { timeoutSeconds: Math.max(config.receiver.timeoutSeconds, 29) } : {}),
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { logsKey: props.logsKey } : {}),
      environment: appProxyEnvironment(config, {
        queueUrl: props.queue.queueUrl,
        webhookSecretArnsJson: (scope as Stack).toJsonString({ shopify: props.shopifySecret.secretArn }),
        openApiSecretArn: props.openApiSecret.secretArn,
        budgetTableName: props.table.tableName,
        ...(redeeming && adminToken
          ? {
              redemption: {
                tableName: props.table.tableName,
                shopDomain: redeeming.shopDomain,
                tokenSecretArn: adminToken.secretArn,
                ...(redeeming.apiVersion ? { apiVersion: redeeming.apiVersion } : {}),
              },
            }
          : {}),
      }),
    });
    // SendMessage with the queue's URL (in its environment) is the one call: no GetQueueUrl, no GetQueueAttributes.
    props.queue.grant(this.function.role, 'sqs:SendMessage');
    props.shopifySecret.grantRead(this.function.role);
    props.openApiSecret.grantRead(this.function.role);
    // Its Open API calls draw from the deployment's one budget (the storefront's reserved share included).
    grantUpstreamBudget(props.table, this.function.role);
    if (adminToken) {
      // Redemption records (and their codes' pointers): read, created where none is, updated under a lease.
      // Nothing else of the table: its keys only (dynamodb:LeadingKeys).
      grantLedgerKeys(props.table, this.function.role, LEDGER_ITEM_ACTIONS, FUNCTION_LEDGER_KEYS.shopifyAppProxy);
      if (redeeming.earnsLater) {
        // Provisional points on the points page: the customer's orders found through the customer index, each read.
        grantLedgerKeys(props.table, this.function.role, ['dynamodb:GetItem'], FUNCTION_LEDGER_KEYS.shopifyAppProxyProvisional);
        grantCustomerIndexQuery(props.table, this.function.role);
      }
      adminToken.grantRead(this.function.role);
    }
    const integration = new HttpLambdaIntegration('AppProxy', this.function.fn, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
    const routes: [string, string, HttpMethod][] = [
      // The first keeps its id ('Route'): the GET route of a deployed stack is not replaced.
      ['Route', APP_PROXY_LINK_PATH, HttpMethod.GET],
      ['RoutePOST', APP_PROXY_LINK_PATH, HttpMethod.POST],
      // GET on redeem reaches the function, which answers 405 (API Gateway would answer 404).
      ...(redeeming
        ? ([
            ['PointsGET', APP_PROXY_POINTS_PATH, HttpMethod.GET],
            ['RedeemPOST', APP_PROXY_REDEEM_PATH, HttpMethod.POST],
            ['RedeemGET', APP_PROXY_REDEEM_PATH, HttpMethod.GET],
          ] as [string, string, HttpMethod][])
        : []),
    ];
    this.routes = routes.map(([id, path, method]) => {
      const route = new HttpRoute(this, id, {
        httpApi: props.api.api,
        routeKey: HttpRouteKey.with(path, method),
        integration,
      });
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "Shopify's App Proxy cannot sign with IAM or present a JWT; every request is authenticated by Shopify's " +
          'App Proxy signature (HMAC-SHA256 of the sorted query with the app secret, 5-minute timestamp) before anything happens.',
      });
      return route;
    });
  }
}

/** The App Proxy's Admin API token secret, created holding an empty token: the operator puts in the discounts app's credentials (docs/deploy.md). */
function discountsTokenSecret(scope: Construct, secretName: string, removalPolicy: ShopifyAppProxyProps['removalPolicy']): Secret {
  const secret = new Secret(scope, 'DiscountsToken', {
    secretName,
    description: `Shopify Admin API token of the App Proxy, scopes ${REDEMPTION_TOKEN_SCOPES.join(', ')} only: {"client_id","client_secret"} or {"access_token"}`,
    secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ access_token: '' })),
    removalPolicy,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'Shopify issues the Admin API access token when the app is installed; a rotation Lambda cannot reissue it there.',
  });
  return secret;
}

/** The App Proxy link for the stage's `shopify` source, or undefined when the stage has none. */
export function shopifyAppProxyFor(
  scope: Construct,
  props: Omit<ShopifyAppProxyProps, 'shopifySecret' | keyof FunctionLogs> & { secrets: Record<string, ISecret>; logs: FunctionLogs },
): ShopifyAppProxy | undefined {
  const shopifySecret = props.secrets.shopify;
  if (!shopifySecret || props.config.sources.shopify === undefined) return undefined;
  const { secrets: _secrets, logs, ...rest } = props;
  return new ShopifyAppProxy(scope, 'ShopifyAppProxy', { ...rest, ...logs, shopifySecret });
}
