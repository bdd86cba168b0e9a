import { type CommandOutput, consoleOutput, terminalOutput } from './output.js';
import { cliCommand } from './command.js';

/**
 * Every operator command, against the local stack (`npm start` on PORT) or a deployed stage (`--stage`):
 * the first argument names it. Each keeps its own options, output and exit codes; reconcile and shopify
 * are loaded only when named (they bring the Shopify Admin client).
 */
export async function opsCommand(argv: string[], env: NodeJS.ProcessEnv, given: CommandOutput = consoleOutput): Promise<number> {
  // Whatever a command prints may hold text a sender chose: no control character reaches the terminal.
  const out = terminalOutput(given);
  const [command, ...rest] = argv;
  if (command === 'reconcile') return (await import('./reconcile-command.js')).reconcileCommand(rest, env, out);
  if (command === 'returns') return (await import('./returns-command.js')).returnsCommand(rest, env, out);
  if (command === 'smaregi') return (await import('./smaregi-command.js')).smaregiCommand(rest, env, out);
  if (command === 'redemptions') return (await import('./redemptions-command.js')).redemptionsCommand(rest, env, out);
  if (command === 'members') return (await import('./members.js')).membersCommand(rest, env, out);
  if (command === 'shopify') return (await import('./shopify-command.js')).shopifyCommand(rest, env, out);
  if (command === 'points-report') return (await import('./points-report.js')).pointsReportCommand(rest, env, out);
  if (command === 'rotate') return (await import('./rotate.js')).rotateCommand(rest, env, out);
  return cliCommand(argv, env, out);
}
