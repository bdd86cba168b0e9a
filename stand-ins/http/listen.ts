import type { AddressInfo, Server } from 'node:net';

/** Listens on host:port (0: a free port) and resolves with the port taken; a bind error rejects. */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
