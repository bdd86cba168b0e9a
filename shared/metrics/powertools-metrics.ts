import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from './names.js';

/** Powertools Metrics as the functions use it: namespace and service from the environment, else ours. */
export function metricsFromEnv(env: NodeJS.ProcessEnv, defaultService: string): Metrics {
  return new Metrics({
    namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    serviceName: env.POWERTOOLS_SERVICE_NAME ?? defaultService,
  });
}
