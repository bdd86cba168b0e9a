import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listStageNames, loadDeployment, loadStageConfig } from '../../../infra/config/index.js';
import { ConfigurationError } from '../../../shared/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'infra-config-'));
mkdirSync(join(scratch, 'stages'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function errorOf(fn: () => unknown): ConfigurationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('loading the deployment', () => {
  it('accepts every example stage file shipped in infra/stages', () => {
    const names = listStageNames(INFRA_DIR);
    expect(names).toEqual(expect.arrayContaining(['staging', 'production', 'dev']));
    for (const name of names) expect(loadStageConfig(INFRA_DIR, name).stageName).toBe(name);
  });

  it('loads the pipeline with its stages in the listed order', () => {
    const deployment = loadDeployment(INFRA_DIR);
    expect(deployment.stages.map((s) => s.stageName)).toEqual(deployment.pipeline.stages);
  });

  it('names the missing stage file', () => {
    const error = errorOf(() => loadStageConfig(scratch, 'qa'));
    expect(error.kind).toBe('config_missing');
    expect(error.message).toContain(join(scratch, 'stages', 'qa.json'));
  });

  it('says a stage file is not JSON', () => {
    writeFileSync(join(scratch, 'stages', 'broken.json'), '{ "stageName": ');
    expect(errorOf(() => loadStageConfig(scratch, 'broken')).kind).toBe('config_not_json');
  });

  it('refuses a stage file whose stageName differs from its file name', () => {
    const staging = readFileSync(join(INFRA_DIR, 'stages', 'staging.json'), 'utf8');
    writeFileSync(join(scratch, 'stages', 'qa2.json'), staging);
    expect(errorOf(() => loadStageConfig(scratch, 'qa2')).message).toMatch(/stageName "staging" differs/);
  });
});
