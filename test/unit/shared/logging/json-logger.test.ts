import { describe, expect, it } from 'vitest';
import { jsonLoggerFromEnv } from '../../../../shared/logging/index.js';

const at = () => new Date('2026-11-20T19:03:12.000Z');

describe('jsonLoggerFromEnv', () => {
  it('writes one JSON line per entry with level, message, service and the extra keys', () => {
    const lines: string[] = [];
    jsonLoggerFromEnv({ POWERTOOLS_SERVICE_NAME: 'points-intake' }, (l) => lines.push(l), at).warn('webhook refused', {
      source: 'pos',
      kind: 'stale_timestamp',
    });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        level: 'WARN',
        message: 'webhook refused',
        service: 'points-intake',
        timestamp: '2026-11-20T19:03:12.000Z',
        source: 'pos',
        kind: 'stale_timestamp',
      },
    ]);
  });

  it('drops entries below POWERTOOLS_LOG_LEVEL', () => {
    const lines: string[] = [];
    const logger = jsonLoggerFromEnv({ POWERTOOLS_LOG_LEVEL: 'warn' }, (l) => lines.push(l), at);
    logger.info('webhook accepted');
    logger.error('queue send failed');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['ERROR']);
  });

  it('does not let an extra key overwrite the level or message', () => {
    const lines: string[] = [];
    jsonLoggerFromEnv({}, (l) => lines.push(l), at).info('webhook accepted', { level: 'DEBUG', message: 'spoofed' });
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 'INFO', message: 'webhook accepted' });
  });

  it('cuts a long text field to about 1 KB, saying how much was cut', () => {
    const lines: string[] = [];
    jsonLoggerFromEnv({}, (l) => lines.push(l), at).error('queue send failed', { error: 'e'.repeat(2_000_000) });
    const error = String(JSON.parse(lines[0] ?? '{}').error);
    expect(error.length).toBeLessThanOrEqual(1024);
    expect(error).toMatch(/characters cut\)$/);
  });
});
