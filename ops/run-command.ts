import { ConfigurationError } from '../shared/config/index.js';
import { isUsageError } from './errors.js';
import { type CommandOutput, terminalOutput } from './output.js';

/** How an operator command tells why it could not run. */
export interface CommandFailures {
  /** Printed after a usage error's message. */
  usage: string;
  /** The command's name, before every other error (`reconcile: …`); none for the main CLI. */
  name?: string;
  /**
   * Errors whose message says it all, printed without their class name: a setting to fix
   * (ConfigurationError, always) and the ones the command adds (an upstream's answer, `() => true`: all).
   */
  plain?: (e: unknown) => boolean;
}

/**
 * Runs an operator command: its output cleared of control characters (stored text may hold terminal
 * escapes), and anything it throws printed on stderr as `failures` says, exit code 2 (could not run).
 */
export async function runCommand(
  failures: CommandFailures,
  given: CommandOutput,
  run: (out: CommandOutput) => Promise<number>,
): Promise<number> {
  const out = terminalOutput(given);
  try {
    return await run(out);
  } catch (e) {
    if (isUsageError(e)) {
      out.printError(`${e.message}\n${failures.usage}`);
      return 2;
    }
    const prefix = failures.name === undefined ? '' : `${failures.name}: `;
    const plain = e instanceof Error && (e instanceof ConfigurationError || failures.plain?.(e) === true);
    out.printError(prefix + (plain ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e)));
    return 2;
  }
}
