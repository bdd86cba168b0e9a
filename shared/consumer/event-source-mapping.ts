import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { PullSwitch } from './pull.js';
import { PullSwitchError } from './errors.js';

/** The SSM parameter holding the id of a stage's process-events event source mapping (infra/constructs/pull-recovery.ts). */
export const pullMappingParameterName = (stageName: string): string => `/loyalty-bridge/${stageName}/process-events/event-source-mapping`;

/**
 * The worker's pulling in AWS: the Enabled flag of its SQS event source mapping. The stack publishes the
 * mapping's UUID in an SSM parameter the worker reads once per container: in the environment it would
 * make the function depend on its own mapping (which depends on the function). The SDKs load on first use.
 */
export function createEventSourceMappingSwitch(opts: { parameterName: string; lambda?: LambdaClient; ssm?: SSMClient }): PullSwitch {
  let ready: Promise<{ client: LambdaClient; sdk: typeof import('@aws-sdk/client-lambda'); uuid: string }> | undefined;
  const load = () =>
    (ready ??= (async () => {
      const [sdk, ssmSdk] = await Promise.all([import('@aws-sdk/client-lambda'), import('@aws-sdk/client-ssm')]);
      const ssm = opts.ssm ?? new ssmSdk.SSMClient({});
      const uuid = (await ssm.send(new ssmSdk.GetParameterCommand({ Name: opts.parameterName }))).Parameter?.Value;
      if (!uuid) throw new PullSwitchError(`SSM parameter ${opts.parameterName} holds no event source mapping id`);
      return { client: opts.lambda ?? new sdk.LambdaClient({}), sdk, uuid };
    })().catch((e: unknown) => {
      ready = undefined; // read again next time
      throw e;
    }));
  const setEnabled = async (enabled: boolean) => {
    const { client, sdk, uuid } = await load();
    await client.send(new sdk.UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: enabled }));
  };
  return {
    pause: () => setEnabled(false),
    resume: () => setEnabled(true),
    async isPaused() {
      const { client, sdk, uuid } = await load();
      const state = (await client.send(new sdk.GetEventSourceMappingCommand({ UUID: uuid }))).State;
      // Disabling / Disabled: pulling stops or has stopped; Enabling: a resume is already under way.
      return state === 'Disabled' || state === 'Disabling';
    },
  };
}
