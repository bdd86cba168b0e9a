/** The deployment's one Open API budget, as each function draws from it (README.md in this folder). */
export {
  budgetedOpenApiClient,
  type BudgetOptions,
  type UpstreamBudgetContext,
  upstreamBudgetFromEnv,
  upstreamBudgetOn,
  upstreamCallsToEmf,
} from './from-env.js';
