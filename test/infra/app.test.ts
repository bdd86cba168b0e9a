import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('cdk synth (infra/app.ts)', () => {
  it('stops with one line naming the stage file, no stack trace, when the file is missing', async () => {
    // What `npx cdk synth -c stage=no-such-stage` hands the app: the context as CDK_CONTEXT_JSON.
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ stage: 'no-such-stage' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^infra: \S+\/infra\/stages\/no-such-stage\.json: file not found\n$/);
  });
});
