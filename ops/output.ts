import { terminalSafe } from '../shared/text/index.js';

/** Where a local command (demo, CLI) writes: the console when run, a list when a test runs it in-process. */
export interface CommandOutput {
  print: (line: string) => void;
  printError: (line: string) => void;
}

export const consoleOutput: CommandOutput = { print: (line) => console.log(line), printError: (line) => console.error(line) };

/** `out` with every line cleared of control characters (shared/text terminalSafe): what every operator command prints through. */
export function terminalOutput(out: CommandOutput): CommandOutput {
  return { print: (line) => out.print(terminalSafe(line)), printError: (line) => out.printError(terminalSafe(line)) };
}
