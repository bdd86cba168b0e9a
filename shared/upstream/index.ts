/** The deployment's one Open API budget, as each function draws from it (README.md in this folder). */
export {
  openApiClientFromEnv,
  type BudgetOptions,
  type UpstreamBudgetContext,
  upstreamBudgetFromEnv,
  upstreamBudgetOn,
  upstreamCallCounterFromEnv,
} from './from-env.js';
