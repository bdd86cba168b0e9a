import type { OpenApiClient, PointItem } from '../openapi/index.js';

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
