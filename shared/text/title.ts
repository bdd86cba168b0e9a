/** A point title's placeholders (`{order}`, `{orderId}`, `{source}`) and their rendering. */
export const TITLE_PLACEHOLDER = /\{([^{}]*)\}/g;
export const TITLE_PLACEHOLDERS = ['order', 'orderId', 'source'] as const;
export type TitleValues = Record<(typeof TITLE_PLACEHOLDERS)[number], string>;

/** Renders a title; cut to the 255 characters the canonical event allows. */
export function renderTitle(template: string, values: TitleValues): string {
  const text = template.replace(TITLE_PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name as keyof TitleValues] : whole,
  );
  if (text.length <= 255) return text;
  // Cut by code points so an emoji is never split in half.
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > 255) break;
    out += ch;
  }
  return out;
}
