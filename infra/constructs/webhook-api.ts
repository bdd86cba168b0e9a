import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export type WebhookApiProps = {
  sources: string[];
  receiver: IFunction;
  rateLimit: number;
  burstLimit: number;
  logRetention: RetentionDays;
  /** Encrypts the access log group. */
  logsKey?: IKey;
  removalPolicy: RemovalPolicy;
};

/** Access log line: who called which route and how it ended; never headers or bodies (signatures, PII). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latency: '$context.responseLatency',
    integrationStatus: '$context.integrationStatus',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** The public HTTP API: one `POST /webhooks/<source>` route per configured source, throttled, logged. */
export class WebhookApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routes: HttpRoute[];

  constructor(scope: Construct, id: string, props: WebhookApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      description: 'Webhooks from Shopify and the POS: verified and queued by receive-webhook',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { encryptionKey: props.logsKey } : {}),
    });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });
    // One integration for every route: one Lambda permission, one place to change the payload version.
    const integration = new HttpLambdaIntegration('Receiver', props.receiver, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    this.routes = props.sources.map(
      (source) =>
        new HttpRoute(this, `Route-${source}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(`/webhooks/${source}`, HttpMethod.POST),
          integration,
        }),
    );
  }

  /** Public URL of a source's webhook route. */
  urlFor(source: string): string {
    return `${this.stage.url}webhooks/${source}`;
  }
}
