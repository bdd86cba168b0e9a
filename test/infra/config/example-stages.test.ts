import { describe, expect, it } from 'vitest';
import { loadDeployment } from '../../../infra/config/index.js';
import { INFRA_DIR } from '../../../infra/paths.js';

/** Kana or kanji: what a member of a Japanese shop reads in the point history (docs/deploy.md, "Titles"). */
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

describe('the example stage files', () => {
  it('give every point and refund title in Japanese, as docs/deploy.md recommends for a Japanese shop', () => {
    for (const stage of loadDeployment(INFRA_DIR).stages) {
      for (const [name, source] of Object.entries(stage.sources)) {
        for (const key of ['pointTitle', 'refundTitle'] as const) {
          const title = (source as Record<string, unknown>)[key];
          if (title !== undefined) expect(title, `${stage.stageName}.sources.${name}.${key}`).toMatch(JAPANESE);
        }
      }
    }
  });
});
