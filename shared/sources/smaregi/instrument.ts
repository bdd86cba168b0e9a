import type { SmaregiClient } from './client.js';
import { SmaregiError, type SmaregiErrorKind } from './errors.js';

/**
 * Told about every failed Smaregi Platform API call (its error kind): a transaction Smaregi no longer
 * has (`not_found`, a deleted sale) is an answer, not a failure, and is not told. The worker counts
 * them (SmaregiApiErrors: the alarm of that name, docs/runbook.md).
 */
type Reader = Pick<SmaregiClient, 'getTransaction'> &
  Partial<
    Pick<
      SmaregiClient,
      'setCustomerPoint' | 'addCustomerPoint' | 'getCustomerPoint' | 'findCustomerByCode' | 'readCustomer' | 'listTransactions'
    >
  >;

export function instrumentSmaregi(
  clients: (source: string) => Reader | undefined,
  failed: (kind: SmaregiErrorKind) => void,
): (source: string) => Reader | undefined {
  const wrapped = new Map<string, Reader>();
  const observed = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (e instanceof SmaregiError && e.kind !== 'not_found') failed(e.kind);
      else if (!(e instanceof SmaregiError)) failed('unavailable');
      throw e;
    }
  };
  return (source) => {
    const known = wrapped.get(source);
    if (known) return known;
    const client = clients(source);
    if (!client) return undefined;
    const write = client.setCustomerPoint?.bind(client);
    const add = client.addCustomerPoint?.bind(client);
    const point = client.getCustomerPoint?.bind(client);
    const find = client.findCustomerByCode?.bind(client);
    const read = client.readCustomer?.bind(client);
    const list = client.listTransactions?.bind(client);
    const instrumented: Reader = {
      getTransaction: (id) => observed(() => client.getTransaction(id)),
      ...(write ? { setCustomerPoint: (id: string, p: number) => observed(() => write(id, p)) } : {}),
      ...(add ? { addCustomerPoint: (id: string, delta: number) => observed(() => add(id, delta)) } : {}),
      ...(point ? { getCustomerPoint: (id: string) => observed(() => point(id)) } : {}),
      ...(find ? { findCustomerByCode: (code: string) => observed(() => find(code)) } : {}),
      ...(read ? { readCustomer: (id: string) => observed(() => read(id)) } : {}),
      ...(list ? { listTransactions: (query: Parameters<typeof list>[0]) => observed(() => list(query)) } : {}),
    };
    wrapped.set(source, instrumented);
    return instrumented;
  };
}
