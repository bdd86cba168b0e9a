import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_BUNDLE } from '../bundling.js';
import { FUNCTION_ENTRIES, FUNCTION_EXTERNAL_MODULES, REPO_ROOT } from '../paths.js';
import { join } from 'node:path';

/** Where a stage's function logs go: every function of a stage shares them. */
export type FunctionLogs = {
  logRetention: RetentionDays;
  /** Encrypts the function's log group. */
  logsKey?: IKey;
  removalPolicy: RemovalPolicy;
};

export type BundledFunctionProps = FunctionLogs & {
  /** Which function: its entry file and the modules left out of its bundle (infra/paths.ts). */
  code: keyof typeof FUNCTION_ENTRIES;
  description: string;
  memoryMiB: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
};

/**
 * One Lambda function as every function of this app is built: bundled by the local esbuild (never
 * Docker), ARM64, Node 24, ESM with source maps, its own log group with retention, and its own role
 * that starts with nothing but writing to that log group (no AWSLambdaBasicExecutionRole: that
 * managed policy may create log groups and write to any of them).
 */
export class BundledFunction extends Construct {
  /** Which function it is (its entry in infra/paths.ts): docs/deploy.md names each by its file name. */
  readonly code: keyof typeof FUNCTION_ENTRIES;
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(scope, id);
    this.code = props.code;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
      ...(props.logsKey ? { encryptionKey: props.logsKey } : {}),
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (least privilege)`,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Function', {
      entry: FUNCTION_ENTRIES[props.code],
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMiB,
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      environment: { ...props.environment, NODE_OPTIONS: FUNCTION_BUNDLE.nodeOptions },
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        // One definition with the bench's (infra/bundling.ts); unless listed, the pinned AWS SDK is bundled too.
        format: FUNCTION_BUNDLE.format as OutputFormat,
        target: FUNCTION_BUNDLE.target,
        minify: FUNCTION_BUNDLE.minify,
        sourceMap: FUNCTION_BUNDLE.sourceMap,
        sourcesContent: FUNCTION_BUNDLE.sourcesContent,
        externalModules: [...FUNCTION_EXTERNAL_MODULES[props.code]],
        mainFields: [...FUNCTION_BUNDLE.mainFields],
        banner: FUNCTION_BUNDLE.banner,
      },
    });
  }
}
