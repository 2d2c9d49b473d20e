/**
 * A Hub started before Tailscale is signed in publishes itself once Tailscale connects, with no
 * restart: its publish is retried every minute until it settles (tailnet/serve-publisher.ts). The
 * Hub's `tailscale` is a fake on PATH that starts logged out and is then signed in.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { userInfo } from 'node:os';
import { SERVE_PUBLISH_RETRY_MS } from '../../src/tailnet/serve-publisher.js';
import { eventually, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fakeTailscale, loggedOutStatus, runningStatus } from '../helpers/fake-tailscale.js';

/** A bound, ended by the publish: one retry after the sign-in, and the CLI's 30 s status cache before it. */
const PUBLISH_BOUND_MS = 2 * SERVE_PUBLISH_RETRY_MS + 30_000;

describe('Tailscale that connects after the Hub started', () => {
  let hub: HubProcess | undefined;
  after(async () => {
    await hub?.stop();
  });

  it('the Hub publishes itself at its tailnet name once Tailscale connects, and doctor C2 then passes', async () => {
    const fake = fakeTailscale({ status: loggedOutStatus(), serve: {} });
    hub = await startHubProcess({ env: { PATH: fake.path } });
    const port = new URL(hub.url).port;
    const publish = `serve --bg --yes --https=443 http://127.0.0.1:${port}`;
    // Logged out, there is nothing to publish at: doctor's C1 says so and nothing was published.
    const before = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    assert.equal(before.code, 1, before.stderr);
    assert.ok(!fake.calls().some((c) => c.join(' ') === publish));

    fake.set({ status: runningStatus('hub-a'), serve: {}, operatorUser: userInfo().username });
    await eventually(
      () => fake.calls().some((c) => c.join(' ') === publish) && fake.state().serve?.Web !== undefined,
      'the Hub to publish itself once Tailscale is connected',
      PUBLISH_BOUND_MS,
    );
    const after = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    const checks = (JSON.parse(after.stdout) as { checks: { code: string; verdict: string }[] }).checks;
    assert.deepEqual(
      checks.filter((c) => c.code === 'C1' || c.code === 'C2').map((c) => [c.code, c.verdict]),
      [
        ['C1', 'ok'],
        ['C2', 'ok'],
      ],
    );
  });
});
