import { capFields } from '../text/index.js';
import type { Logger } from './logger.js';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, CRITICAL: 50, SILENT: 60 } as const;

/**
 * JSON-line logger in Powertools' shape (level, message, service, timestamp, then the extra keys),
 * honouring POWERTOOLS_SERVICE_NAME and POWERTOOLS_LOG_LEVEL. Written here rather than taken from
 * @aws-lambda-powertools/logger to keep receive-webhook's bundle under its 150 KB target (~22 KB less).
 */
export function jsonLoggerFromEnv(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => Date = () => new Date(),
): Logger {
  const service = env.POWERTOOLS_SERVICE_NAME || 'receive-webhook';
  const wanted = (env.POWERTOOLS_LOG_LEVEL ?? 'INFO').toUpperCase();
  const threshold = Object.hasOwn(LEVELS, wanted) ? LEVELS[wanted as keyof typeof LEVELS] : LEVELS.INFO;
  const log =
    (level: 'INFO' | 'WARN' | 'ERROR') =>
    (message: string, extra: Record<string, unknown> = {}) => {
      if (LEVELS[level] < threshold) return;
      write(JSON.stringify({ ...capFields(extra), level, message, service, timestamp: now().toISOString() }));
    };
  return { info: log('INFO'), warn: log('WARN'), error: log('ERROR') };
}
