/** Secret rotation: the new secret beside the old, then the old retired (docs/deploy.md §3 and §5). */
export { rotateSecret, type RotationOutcome, type SecretStore, type TokenCheck, tokenAccepted } from './rotate.js';
export { RotationError, type RotationErrorKind, type RotationStep, type RotationTarget, rotatedValue } from './values.js';
