import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_USAGE } from '../../../ops/command.js';
import { giveBackId, SMAREGI_SCOPES, spendId } from '../../../shared/sources/smaregi/index.js';
import { SMAREGI_POINT_WRITE_SCOPES } from '../../../shared/sources/smaregi/token.js';
import { REDEMPTION_TOKEN_SCOPES } from '../../../shared/sources/shopify/index.js';
import { discountsTokenSecretName } from '../../../infra/config/index.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
/** The text of a markdown section: from its heading to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = /^#+/.exec(heading)?.[0] ?? '#';
  const next = text.slice(start + heading.length).search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return next < 0 ? text.slice(start) : text.slice(start, start + heading.length + next);
}

describe('docs that say what the code does', () => {
  it("docs/redemption.md describes the till's half as built, by the ledger ids the code uses", () => {
    const text = read('docs/redemption.md');
    expect(text).not.toMatch(/not built yet/);
    for (const id of [spendId('<sale>', 0).replace('0', '<g>'), giveBackId('<sale>', 0).replace('0', '<g>')]) expect(text).toContain(id);
  });

  it("docs/deploy.md §6 lists every scope the Smaregi app's tokens ask for, per tillPoints mode", () => {
    const scopes = section(read('docs/deploy.md'), '## 6. Point the senders at the URLs');
    expect(scopes).not.toMatch(/pos\.customers:read` only/);
    for (const scope of `${SMAREGI_SCOPES} ${SMAREGI_POINT_WRITE_SCOPES}`.split(' ')) expect(scopes).toContain(`\`${scope}\``);
  });

  it("docs/deploy.md §6 names the App Proxy's own Admin token secret and every scope it holds, and no read_orders for it", () => {
    const section6 = section(read('docs/deploy.md'), '## 6. Point the senders at the URLs');
    const redemptions = section(section6, '### Redemptions (points spent as discount codes)');
    const name = discountsTokenSecretName({ stageName: 'production' }, 'shopify');
    expect(redemptions).toContain(name);
    for (const scope of REDEMPTION_TOKEN_SCOPES) expect(redemptions).toContain(`\`${scope}\``);
    expect(redemptions).not.toMatch(/through the same secret as reconciliation/);
  });

  it("the runbook's privacy section and docs/privacy.md name every privacy command, for both channels", () => {
    const usage = CLI_USAGE.split('\n').filter((l) => l.includes('npm run privacy'));
    const commands = ['show', 'smaregi report', 'smaregi erase'];
    for (const command of commands) expect(usage.join('\n'), command).toContain(`${command} <`);
    const runbook = section(read('docs/runbook.md'), '## Privacy requests');
    const privacy = read('docs/privacy.md');
    for (const command of commands) {
      expect(runbook, command).toContain(`npm run privacy -- ${command}`);
      expect(privacy, command).toContain(`npm run privacy -- ${command}`);
    }
  });
});
