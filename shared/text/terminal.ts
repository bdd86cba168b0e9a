/**
 * Text bound for an operator's terminal without the control characters in it (an ESC sequence can
 * retitle the window, clear the screen or hide what follows; a bare CR can overwrite a line): C0
 * controls but tab and line feed, DEL, C1 controls and the bidirectional overrides go. Stored data
 * (a shop domain, an upstream's error text) reaches the commands' output this way only.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(CONTROL, '');
}
