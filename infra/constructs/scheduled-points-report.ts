import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { pointsReportEnvironment, type StageConfig } from '../config/index.js';
import { BundledFunction, type FunctionLogs } from './bundled-function.js';

/** Where the CSVs go in the bucket (`points-report/YYYY-MM.csv`): the only prefix the function may write. */
export const POINTS_REPORT_PREFIX = 'points-report/';

/** What S3 asks of the writer's rights on the bucket's key to store an object encrypted with it. */
export const POINTS_REPORT_KEY_ACTIONS = ['kms:GenerateDataKey'] as const;

/**
 * The monthly points report for the accountants (docs/accounting.md): export-points-report runs at 01:00
 * JST on the 1st (16:00 UTC on the last day of the month before) and writes the previous JST month's
 * CSV to a bucket of its own: encrypted with its own KMS key (rotated yearly), public access blocked,
 * SSL only, versioned (a re-export keeps the earlier object), its server access logs in a second
 * bucket. The function may Scan the ledger table, put objects under `points-report/` (granted by the
 * bucket's policy, not a wildcard in its role) and make data keys with the bucket's key; nothing else.
 */
export class ScheduledPointsReport extends Construct {
  readonly function: BundledFunction;
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;
  readonly key: Key;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FunctionLogs & { config: StageConfig; table: ITable; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    // Log delivery by the access-log bucket's policy, not an ACL (ACLs stay disabled: bucket owner enforced).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    this.key = new Key(this, 'Key', {
      description: 'Encrypts the loyalty bridge points reports (the accountants’ monthly CSV)',
      enableKeyRotation: true,
      pendingWindow: Duration.days(30),
      removalPolicy: props.removalPolicy,
    });
    // Log delivery writes with S3-managed keys only (it cannot use a customer managed key).
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(400) }],
      removalPolicy: props.removalPolicy,
    });
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'points-report-bucket/',
      removalPolicy: props.removalPolicy,
    });
    this.function = new BundledFunction(this, 'Function', {
      code: 'exportPointsReport',
      description: 'Writes the previous month’s points report (CSV) to the report bucket',
      memoryMiB: 512,
      // A scan of the whole ledger: give it Lambda's maximum.
      timeoutSeconds: 900,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { logsKey: props.logsKey } : {}),
      environment: pointsReportEnvironment(props.config, { tableName: props.table.tableName, bucketName: this.bucket.bucketName }),
    });
    this.function.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['dynamodb:Scan'], resources: [props.table.tableArn] }));
    this.function.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...POINTS_REPORT_KEY_ACTIONS], resources: [this.key.keyArn] }));
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        principals: [this.function.role],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(`${POINTS_REPORT_PREFIX}*`)],
      }),
    );
    this.rule = new Rule(this, 'Monthly', {
      description: 'Exports the previous JST month’s points report',
      schedule: Schedule.cron({ minute: '0', hour: '16', day: 'L', month: '*', year: '*' }),
      targets: [
        new LambdaFunction(this.function.fn, { event: RuleTargetInput.fromObject({}), retryAttempts: 2, maxEventAge: Duration.hours(6) }),
      ],
    });
  }
}
