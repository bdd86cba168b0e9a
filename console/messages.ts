/**
 * What the console's API says in words travels as a message: a key of the page's tables
 * (static/messages.ja.json, static/messages.en.json) and its values, so the page words it in the reader's
 * language. A value may itself be a message (a clause such as "(refund …)"); data (ids, outcomes, error
 * texts from the ledger) travels as it is.
 */
export interface ConsoleMessage {
  key: string;
  params?: Record<string, string | number | ConsoleMessage>;
}

export const message = (key: string, params?: ConsoleMessage['params']): ConsoleMessage => (params ? { key, params } : { key });
