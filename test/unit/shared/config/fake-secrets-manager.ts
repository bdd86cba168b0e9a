import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';

/**
 * Secrets Manager cannot run on this machine: the SDK client is replaced at its `send` boundary by a
 * store that answers GetSecretValue like the service and counts the calls.
 */
export function fakeSecretsManager(values: Record<string, string | undefined>) {
  const store = { values, calls: 0, fail: false };
  const client = {
    async send(command: GetSecretValueCommand) {
      store.calls++;
      if (store.fail) throw Object.assign(new Error('ResourceNotFoundException'), { name: 'ResourceNotFoundException' });
      const id = command.input.SecretId ?? '';
      return { SecretString: store.values[id] };
    },
  };
  return { store, client };
}
