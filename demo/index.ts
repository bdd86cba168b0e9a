/** The demo (`npm run demo`): signed webhooks against the local stack, and what each should have done to points. */
export { demoCommand } from './command.js';
export { type DemoResult, type DemoTarget, expectedPoints, runDemo } from './run.js';
