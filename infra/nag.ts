import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * The AwsSolutions pack over the whole app (every stage the pipeline deploys included): any finding
 * that is not acknowledged, with its reason, next to the construct fails `cdk synth`.
 */
export function applyChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}
