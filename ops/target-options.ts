import type { StageOptions } from './aws.js';
import { OpsError } from './errors.js';

/**
 * The options that point a command at a deployed stage instead of the local stack
 * (`--stage S [--stack NAME] [--outputs FILE]`). Here rather than in aws.ts: that module loads the
 * AWS SDK, which a local command never needs.
 */
export const AWS_TARGET_OPTIONS = {
  stage: { type: 'string' },
  stack: { type: 'string' },
  outputs: { type: 'string' },
} as const;

/** `--stack` and `--outputs` only mean something with `--stage`. */
export function checkTargetOptions(values: { stage?: string | undefined; stack?: string | undefined; outputs?: string | undefined }): void {
  if (values.stage === undefined && (values.stack !== undefined || values.outputs !== undefined)) {
    throw new OpsError('usage', '--stack and --outputs go with --stage');
  }
}

/** The deployed stage the options name (checked as above), or undefined for the local stack. */
export function stageOf(values: {
  stage?: string | undefined;
  stack?: string | undefined;
  outputs?: string | undefined;
}): StageOptions | undefined {
  checkTargetOptions(values);
  if (values.stage === undefined) return undefined;
  return {
    stage: values.stage,
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.outputs ? { outputsFile: values.outputs } : {}),
  };
}
