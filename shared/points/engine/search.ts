import type { OpenApiClient, PointItem } from '../../openapi/index.js';

const PER_PAGE = 1000; // the largest page the Open API serves (the client refuses more: shared/openapi/client.ts)

/**
 * How far before an operation's first send a search must reach. The history dates its entries in the
 * service's own clock and zone (`Y-m-d H:i:s`, zone not shown by the spec): read as UTC, an entry of a
 * service in any zone is at most 14 h off, and the two clocks a few seconds apart; a day covers both.
 * A member makes few entries a day, so the extra reach costs a page at most.
 */
export const SEARCH_SKEW_ALLOWANCE_MS = 24 * 3600 * 1000;
/** A guard against an endless history, never the rule: a search that reaches it is incomplete. */
export const SEARCH_MAX_PAGES = 100;

/** A search of the point history for markers: complete (what it did not find never landed by now), or not. */
export type SearchResult =
  | { complete: true; found: Map<string, PointItem> }
  | { complete: false; found: Map<string, PointItem>; why: 'page_limit' };

export interface SearchOptions {
  /** Epoch ms: the earliest any of the searched operations may have been sent. Absent: the whole history. */
  since?: number | undefined;
  maxPages?: number;
}

/** `Y-m-d H:i:s` read as UTC (see SEARCH_SKEW_ALLOWANCE_MS); NaN when unreadable. */
const entryTime = (item: PointItem): number => Date.parse(`${item.created_at.replace(' ', 'T')}Z`);

/**
 * Finds the history entries whose `remarks` equal the markers (exact match: `order:12` must not match
 * `order:123`), newest first. Complete when every marker is found, the last page is read, or an entry
 * older than `since` less the allowance is reached (nothing older can be an operation sent since).
 * A failed page read throws the client's error: the caller's search is then in doubt, never "absent".
 */
export async function searchHistory(
  api: Pick<OpenApiClient, 'listPoints'>,
  memberId: string,
  markers: readonly string[],
  options: SearchOptions = {},
): Promise<SearchResult> {
  const wanted = new Set(markers);
  const found = new Map<string, PointItem>();
  const boundary = options.since === undefined ? undefined : options.since - SEARCH_SKEW_ALLOWANCE_MS;
  const maxPages = options.maxPages ?? SEARCH_MAX_PAGES;
  for (let page = 1; page <= maxPages; page++) {
    const result = await api.listPoints(memberId, { page, perPage: PER_PAGE });
    let passedBoundary = false;
    for (const item of result.points) {
      if (item.remarks && wanted.has(item.remarks) && !found.has(item.remarks)) found.set(item.remarks, item);
      if (boundary !== undefined && entryTime(item) < boundary) passedBoundary = true;
    }
    if (found.size === wanted.size || passedBoundary || page >= result.last_page) return { complete: true, found };
  }
  return { complete: false, found, why: 'page_limit' };
}
