/** Where a local command (demo, CLI) writes: the console when run, a list when a test runs it in-process. */
export interface CommandOutput {
  print: (line: string) => void;
  printError: (line: string) => void;
}

export const consoleOutput: CommandOutput = { print: (line) => console.log(line), printError: (line) => console.error(line) };
