/**
 * How the project's zod schemas are declared: `lazySchema` builds a module-level schema on first use,
 * so importing a module (and loading a Lambda bundle) builds none. A leaf: it imports no shared/ module.
 */
export { lazyObject, lazySchema } from './lazy.js';
