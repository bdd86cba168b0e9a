import { describe, expect, it } from 'vitest';
import { checkTargetOptions, stageOf } from '../../../ops/target-options.js';

describe('the stage options of an operator command', () => {
  it('refuses --stack or --outputs without --stage, naming the rule', () => {
    expect(() => checkTargetOptions({ stack: 'LoyaltyBridge-dev' })).toThrow('--stack and --outputs go with --stage');
    expect(() => checkTargetOptions({ outputs: 'cdk-outputs.json' })).toThrow('--stack and --outputs go with --stage');
    expect(() => stageOf({ stack: 'LoyaltyBridge-dev' })).toThrow('--stack and --outputs go with --stage');
  });

  it('takes them with --stage, and nothing at all for the local stack', () => {
    expect(() => checkTargetOptions({ stage: 'dev', stack: 'LoyaltyBridge-dev', outputs: 'cdk-outputs.json' })).not.toThrow();
    expect(() => checkTargetOptions({})).not.toThrow();
  });

  it('names the stage a command acts on, its stack and outputs file when given, and none for the local stack', () => {
    expect(stageOf({ stage: 'dev', stack: 'LoyaltyBridge-dev', outputs: 'cdk-outputs.json' })).toEqual({
      stage: 'dev',
      stack: 'LoyaltyBridge-dev',
      outputsFile: 'cdk-outputs.json',
    });
    expect(stageOf({ stage: 'dev' })).toEqual({ stage: 'dev' });
    expect(stageOf({})).toBeUndefined();
  });
});
