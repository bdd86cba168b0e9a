/**
 * The stack's output keys, one definition for the stack that writes them and the operator commands
 * that read them. CloudFormation keys an output by its construct id with every non-alphanumeric
 * character dropped (`WebhookUrl-shopify` became `WebhookUrlshopify`), so every key here is
 * alphanumeric already: what is written is what `describe-stacks` and `cdk deploy --outputs-file` show.
 */
export const OUTPUT_KEYS = {
  ledgerTable: 'LedgerTableName',
  queueUrl: 'QueueUrl',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  alarmTopic: 'AlarmTopicArn',
  quarantineTable: 'QuarantineTableName',
  dashboard: 'DashboardName',
  pointsReportBucket: 'PointsReportBucketName',
} as const;

/**
 * A source name (`[a-z0-9-]`) as part of a key: a hyphen becomes `Dash` (capital letters never occur
 * in a source name, so two sources never share a key); `shopify` stays `shopify`, the key deployed
 * stacks already have.
 */
function sourcePart(source: string): string {
  return source.replace(/-/g, 'Dash');
}

/** `WebhookUrl<source>`: where the source's webhooks go. */
export function webhookUrlOutputKey(source: string): string {
  return `WebhookUrl${sourcePart(source)}`;
}

/** `WebhookSecretName<source>`: the secret holding the source's signing secrets. */
export function webhookSecretNameOutputKey(source: string): string {
  return `WebhookSecretName${sourcePart(source)}`;
}
