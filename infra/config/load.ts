import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PipelineConfig, StageConfig } from './schema.js';
import { ConfigurationError } from '../../shared/config/index.js';

/** A configuration file that is missing, not JSON, or not valid: the message names the file and fields. */
export type StageFileErrorKind = 'config_missing' | 'config_not_json' | 'config_invalid';
const stageFileError = (kind: StageFileErrorKind, file: string, detail: string) => new ConfigurationError(kind, `${file}: ${detail}`);

export type Deployment = {
  pipeline: PipelineConfig;
  /** In pipeline order. */
  stages: StageConfig[];
};

function readJson(file: string): unknown {
  if (!existsSync(file)) throw stageFileError('config_missing', file, 'file not found');
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw stageFileError('config_not_json', file, (error as Error).message);
  }
}

function parseWith<T extends z.ZodType>(schema: T, file: string, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw stageFileError('config_invalid', file, `\n${z.prettifyError(result.error)}`);
  return result.data;
}

export function parseStageConfig(value: unknown, file = '<stage>'): StageConfig {
  return parseWith(StageConfig, file, value);
}

export function parsePipelineConfig(value: unknown, file = '<pipeline>'): PipelineConfig {
  return parseWith(PipelineConfig, file, value);
}

/** Reads `<dir>/stages/<name>.json`; the file's stageName must match its name. */
export function loadStageConfig(dir: string, name: string): StageConfig {
  const file = join(dir, 'stages', `${name}.json`);
  const stage = parseStageConfig(readJson(file), file);
  if (stage.stageName !== name) {
    throw stageFileError('config_invalid', file, `stageName "${stage.stageName}" differs from the file name "${name}"`);
  }
  return stage;
}

export function listStageNames(dir: string): string[] {
  return readdirSync(join(dir, 'stages'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** Reads `<dir>/pipeline.json` and the stage files it names. */
export function loadDeployment(dir: string): Deployment {
  const file = join(dir, 'pipeline.json');
  const pipeline = parsePipelineConfig(readJson(file), file);
  const stages = pipeline.stages.map((name) => loadStageConfig(dir, name));
  const names = new Set(stages.map((s) => s.stageName));
  if (names.size !== stages.length) throw stageFileError('config_invalid', file, 'a stage is listed twice');
  return { pipeline, stages };
}
