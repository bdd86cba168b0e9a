/** The value of a JSON text, or undefined when the text is not JSON (JSON itself has no undefined). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
