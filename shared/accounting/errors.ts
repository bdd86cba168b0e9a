import { KindedError } from '../errors/index.js';

/** The root of this module's errors: each has a `kind` to branch on and its class's `name`. */
export abstract class AccountingError extends KindedError {
  override readonly name: string = 'AccountingError';
}

/** What the operator asked for cannot be reported (a month that is not YYYY-MM, a value per point that is not a decimal). */
export class ReportRequestError extends AccountingError {
  override readonly name = 'ReportRequestError';
  constructor(
    readonly kind: 'invalid_month' | 'invalid_value_per_point' | 'conflicting_value_per_point',
    message: string,
  ) {
    super(message);
  }
}

/** The month's rows and the ledger's books disagree: the report is not handed over (each difference is listed). */
export class ReportNotReconciledError extends AccountingError {
  override readonly name = 'ReportNotReconciledError';
  readonly kind = 'not_reconciled';
  constructor(
    readonly month: string,
    readonly differences: readonly string[] = [],
  ) {
    super(`points report ${month} does not reconcile with the ledger: ${differences.join('; ')}`);
  }
}
