import { type LocalConfig, resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, findRunningStack, type LocalStackHandle } from '../kit/local-stack/connect.js';
import { OpsError } from './errors.js';

/**
 * The `npm start` on PORT, its emulator and dynalite reached where it says they are (its configuration
 * followed: configFollowingStack), with this process's own configuration; a usage error where none answers.
 */
export async function connectToLocalStack(env: NodeJS.ProcessEnv): Promise<{ config: LocalConfig; handle: LocalStackHandle }> {
  const config = await resolveLocalConfig(env);
  const found = await findRunningStack(config);
  if (found.status !== 'up') {
    throw new OpsError('usage', `no local stack answers at ${found.intakeUrl}: start it with npm start (or pass --stage for AWS)`);
  }
  return { config, handle: connectToRunningStack(await configFollowingStack(config, found.info, env), found.info) };
}

/** The running `npm start`'s handle (connectToLocalStack). */
export async function localHandle(env: NodeJS.ProcessEnv): Promise<LocalStackHandle> {
  return (await connectToLocalStack(env)).handle;
}
