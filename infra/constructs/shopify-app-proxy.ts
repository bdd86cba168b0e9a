import { type Stack, Validations } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { appProxyEnvironment, type StageConfig } from '../config/index.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';
import type { WebhookApi } from './webhook-api.js';

/** The route the Shopify App Proxy forwards the storefront's link request to (proxy URL `<api>/proxy/shopify`). */
export const APP_PROXY_LINK_PATH = '/proxy/shopify/link';

export type ShopifyAppProxyProps = FunctionLogs & {
  config: StageConfig;
  api: WebhookApi;
  queue: IQueue;
  /** The Shopify source's webhook secret: the app's secret, which signs App Proxy requests too. */
  shopifySecret: ISecret;
  openApiSecret: ISecret;
};

/**
 * `GET|POST /proxy/shopify/link` -> shopify-app-proxy: links a logged-in Shopify customer to a member
 * in two steps, a confirmation (GET) and the confirmed link (POST) (docs/customers.md). Reads the Shopify secret and the Open API secret, sends to the event queue
 * (crediting earlier purchases); nothing else.
 */
export class ShopifyAppProxy extends Construct {
  readonly function: BundledFunction;
  /** GET (the confirmation) and POST (the confirmed link), one function. */
  readonly routes: HttpRoute[];

  constructor(scope: Construct, id: string, props: ShopifyAppProxyProps) {
    super(scope, id);
    const { config } = props;
    this.function = new BundledFunction(this, 'Function', {
      code: 'shopifyAppProxy',
      description: 'Links a logged-in Shopify customer to a member through the App Proxy',
      ...config.receiver,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { logsKey: props.logsKey } : {}),
      environment: appProxyEnvironment(config, {
        queueUrl: props.queue.queueUrl,
        webhookSecretArnsJson: (scope as Stack).toJsonString({ shopify: props.shopifySecret.secretArn }),
        openApiSecretArn: props.openApiSecret.secretArn,
      }),
    });
    // SendMessage with the queue's URL (in its environment) is the one call: no GetQueueUrl, no GetQueueAttributes.
    props.queue.grant(this.function.role, 'sqs:SendMessage');
    props.shopifySecret.grantRead(this.function.role);
    props.openApiSecret.grantRead(this.function.role);
    const integration = new HttpLambdaIntegration('AppProxy', this.function.fn, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
    // The first keeps its id ('Route'): the GET route of a deployed stack is not replaced.
    this.routes = [HttpMethod.GET, HttpMethod.POST].map((method, i) => {
      const route = new HttpRoute(this, i === 0 ? 'Route' : `Route${method}`, {
        httpApi: props.api.api,
        routeKey: HttpRouteKey.with(APP_PROXY_LINK_PATH, method),
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
