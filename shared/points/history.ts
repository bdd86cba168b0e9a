import { isOpenApiError, type OpenApiClient, type PointItem } from '../openapi/index.js';

const PER_PAGE = 1000; // the largest page the Open API serves (the client refuses more: shared/openapi/client.ts)

/**
 * Finds the history entries whose `remarks` equal the given markers (exact match: `order:12` must not
 * match `order:123`). Newest first, at most `maxPages` pages; stops as soon as all are found.
 */
export async function findMarkers(
  api: Pick<OpenApiClient, 'listPoints'>,
  customerId: string,
  markers: readonly string[],
  maxPages: number,
): Promise<Map<string, PointItem>> {
  const wanted = new Set(markers);
  const found = new Map<string, PointItem>();
  for (let page = 1; page <= maxPages && found.size < wanted.size; page++) {
    const result = await api.listPoints(customerId, { page, perPage: PER_PAGE });
    for (const item of result.points) {
      if (item.remarks && wanted.has(item.remarks) && !found.has(item.remarks)) found.set(item.remarks, item);
    }
    if (page >= result.last_page) break;
  }
  return found;
}

/**
 * Right after a points call whose outcome is unknown (our timeout, a lost answer): its entry if the
 * history already shows it. Found, the call ran, conclusively: the attempt finishes from it at once,
 * instead of keeping the lease until the request can no longer land. Not found (or the search failed):
 * undefined, and the attempt leaves the call in doubt as before (it may still land).
 */
export async function landedEntry(
  api: Pick<OpenApiClient, 'listPoints'>,
  customerId: string,
  marker: string,
  maxPages: number,
): Promise<PointItem | undefined> {
  try {
    return (await findMarkers(api, customerId, [marker], maxPages)).get(marker);
  } catch (e) {
    if (isOpenApiError(e)) return undefined;
    throw e;
  }
}
