import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../shared/config/index.js';
import { OpsError } from '../../../ops/errors.js';
import { runCommand } from '../../../ops/run-command.js';

/** Runs `body` as a command named `name` would, answering its exit code and what it printed on stderr. */
async function failing(body: () => never, failures: Parameters<typeof runCommand>[0]) {
  const errors: string[] = [];
  const code = await runCommand(failures, { print: () => undefined, printError: (l) => errors.push(l) }, async () => body());
  return { code, errors };
}

class UpstreamAnswer extends Error {}

describe('an operator command that could not run', () => {
  it('prints a usage error with the command’s usage, exit 2', async () => {
    const run = await failing(
      () => {
        throw new OpsError('usage', 'name a command');
      },
      { usage: 'usage: npm run x -- check', name: 'x' },
    );
    expect(run).toEqual({ code: 2, errors: ['name a command\nusage: npm run x -- check'] });
  });

  it('prints a setting to fix by its message alone, after the command’s name', async () => {
    const run = await failing(
      () => {
        throw new ConfigurationError('no_local_stack', 'no local stack answers: start it with npm start');
      },
      { usage: 'u', name: 'x' },
    );
    expect(run.errors).toEqual(['x: no local stack answers: start it with npm start']);
  });

  it('names the class of any other error, unless the command says its message says it all', async () => {
    const boom = () => {
      throw new UpstreamAnswer('the shop answered 403');
    };
    expect((await failing(boom, { usage: 'u', name: 'x' })).errors).toEqual(['x: Error: the shop answered 403']);
    expect((await failing(boom, { usage: 'u', plain: (e) => e instanceof UpstreamAnswer })).errors).toEqual(['the shop answered 403']);
  });

  it('prints no control character a stored text carried, on either stream', async () => {
    const printed: string[] = [];
    const out = { print: (l: string) => printed.push(l), printError: (l: string) => printed.push(l) };
    const code = await runCommand({ usage: 'u', name: 'x' }, out, async (o) => {
      o.print('shop \u001b]0;owned\u0007example');
      throw new Error('upstream \u001b[2Jsaid no');
    });
    expect({ code, printed }).toEqual({ code: 2, printed: ['shop ]0;ownedexample', 'x: Error: upstream [2Jsaid no'] });
  });
});
