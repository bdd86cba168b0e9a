import type * as z from 'zod';
// paths.ts alone, not ../openapi/index.js: receive-webhook loads this module, and the index would bundle the
// Open API client into that function.
import { pathParamProblem, type PathParamRule } from '../openapi/paths.js';

/**
 * The Open API client's own rule for a path parameter (shared/openapi/paths.ts), as a zod check:
 * an id intake accepts is one the client will send (no `.`/`..` segment, no slash, no control
 * characters), so a bad id is a 422 naming its field rather than a dead letter later.
 */
export const pathSafe =
  (rule: PathParamRule) =>
  (value: string, ctx: z.RefinementCtx): void => {
    const problem = pathParamProblem(rule, value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  };
