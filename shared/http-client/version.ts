/**
 * The product's version as the User-Agent names it. Kept here, not imported from package.json: a JSON
 * import bundles the whole manifest (about 2 KB) into every function that calls out.
 * test/unit/shared/http-client/version.test.ts holds it equal to package.json's version.
 */
export const PRODUCT_VERSION = '0.1.0';
