// dynalite ships no types; this is the part of its API the tests and the local stack use.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    path?: string;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
