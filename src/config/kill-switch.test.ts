import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePoolDirections, type Direction, type DisabledBy, type PoolDirections, type SwitchInputs } from './kill-switch.js';

type Settings = Parameters<typeof resolvePoolDirections>[1];

const ENV_ON: SwitchInputs = { userDisabled: false, outboundDisabled: false, inboundDisabled: false };
const SETTINGS_ON: Settings = { poolEnabled: true, poolOutboundEnabled: true, poolInboundEnabled: true };

type Master = Pick<PoolDirections, 'enabled' | 'disabledBy'>;
const masterOn: Master = { enabled: true, disabledBy: null };
const masterOffBy = (by: Exclude<DisabledBy, null>): Master => ({ enabled: false, disabledBy: by });

const on: Direction = { enabled: true, disabledBy: null, envLocked: false };
/** A direction held off by `by`; envLocked says whether its own env flag is set as well. */
const offBy = (by: Exclude<DisabledBy, null>, envLocked = false): Direction => ({ enabled: false, disabledBy: by, envLocked });
/** A direction its own env flag holds off, with the master on. */
const envOff: Direction = offBy('env', true);

interface Row {
  readonly name: string;
  readonly env?: Partial<SwitchInputs>;
  readonly settings?: Partial<Settings>;
  readonly master: Master;
  readonly outbound: Direction;
  readonly inbound: Direction;
}

describe('resolvePoolDirections', () => {
  const rows: readonly Row[] = [
    { name: 'nothing set: everything on', master: masterOn, outbound: on, inbound: on },
    {
      name: 'env master off: both directions off by env',
      env: { userDisabled: true },
      master: masterOffBy('env'),
      outbound: offBy('env'),
      inbound: offBy('env'),
    },
    {
      name: 'setting master off: both directions off by setting',
      settings: { poolEnabled: false },
      master: masterOffBy('setting'),
      outbound: offBy('setting'),
      inbound: offBy('setting'),
    },
    {
      name: 'env master beats setting master: env is named',
      env: { userDisabled: true },
      settings: { poolEnabled: false },
      master: masterOffBy('env'),
      outbound: offBy('env'),
      inbound: offBy('env'),
    },
    {
      name: 'env master short-circuits directions the settings left on and the env left off; the outbound flag still shows as its lock',
      env: { userDisabled: true, outboundDisabled: true },
      settings: { poolInboundEnabled: false },
      master: masterOffBy('env'),
      outbound: offBy('env', true),
      inbound: offBy('env'),
    },
    {
      name: 'setting master short-circuits a direction the env switched off: the master is named, and the env flag still shows as its lock',
      env: { outboundDisabled: true },
      settings: { poolEnabled: false },
      master: masterOffBy('setting'),
      outbound: offBy('setting', true),
      inbound: offBy('setting'),
    },
    {
      name: 'setting master off with the inbound env flag set: inbound carries the lock, outbound does not',
      env: { inboundDisabled: true },
      settings: { poolEnabled: false },
      master: masterOffBy('setting'),
      outbound: offBy('setting'),
      inbound: offBy('setting', true),
    },
    { name: 'env outbound off: only outbound, by env', env: { outboundDisabled: true }, master: masterOn, outbound: envOff, inbound: on },
    { name: 'env inbound off: only inbound, by env', env: { inboundDisabled: true }, master: masterOn, outbound: on, inbound: envOff },
    {
      name: 'setting outbound off: only outbound, by setting',
      settings: { poolOutboundEnabled: false },
      master: masterOn,
      outbound: offBy('setting'),
      inbound: on,
    },
    {
      name: 'setting inbound off: only inbound, by setting',
      settings: { poolInboundEnabled: false },
      master: masterOn,
      outbound: on,
      inbound: offBy('setting'),
    },
    {
      name: 'env outbound beats setting outbound',
      env: { outboundDisabled: true },
      settings: { poolOutboundEnabled: false },
      master: masterOn,
      outbound: envOff,
      inbound: on,
    },
    {
      name: 'env inbound beats setting inbound',
      env: { inboundDisabled: true },
      settings: { poolInboundEnabled: false },
      master: masterOn,
      outbound: on,
      inbound: envOff,
    },
    {
      name: 'each direction resolved on its own axis: outbound by env, inbound by setting',
      env: { outboundDisabled: true },
      settings: { poolInboundEnabled: false },
      master: masterOn,
      outbound: envOff,
      inbound: offBy('setting'),
    },
    {
      name: 'each direction resolved on its own axis: outbound by setting, inbound by env',
      env: { inboundDisabled: true },
      settings: { poolOutboundEnabled: false },
      master: masterOn,
      outbound: offBy('setting'),
      inbound: envOff,
    },
    {
      name: 'both directions off by env with the master on',
      env: { outboundDisabled: true, inboundDisabled: true },
      master: masterOn,
      outbound: envOff,
      inbound: envOff,
    },
    {
      name: 'both directions off by setting with the master on',
      settings: { poolOutboundEnabled: false, poolInboundEnabled: false },
      master: masterOn,
      outbound: offBy('setting'),
      inbound: offBy('setting'),
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const got = resolvePoolDirections({ ...ENV_ON, ...row.env }, { ...SETTINGS_ON, ...row.settings });
      assert.deepEqual({ enabled: got.enabled, disabledBy: got.disabledBy }, row.master);
      assert.deepEqual(got.outbound, row.outbound);
      assert.deepEqual(got.inbound, row.inbound);
    });
  }

  it('across all 64 combinations, a master switch turns both directions off and names itself, and each direction says whether its own env flag is set', () => {
    const bools = [false, true];
    let checked = 0;
    for (const userDisabled of bools)
      for (const outboundDisabled of bools)
        for (const inboundDisabled of bools)
          for (const poolEnabled of bools)
            for (const poolOutboundEnabled of bools)
              for (const poolInboundEnabled of bools) {
                const got = resolvePoolDirections(
                  { userDisabled, outboundDisabled, inboundDisabled },
                  { poolEnabled, poolOutboundEnabled, poolInboundEnabled },
                );
                const master: DisabledBy = userDisabled ? 'env' : poolEnabled ? null : 'setting';
                const label = JSON.stringify({ userDisabled, outboundDisabled, inboundDisabled, poolEnabled, poolOutboundEnabled, poolInboundEnabled });
                assert.equal(got.enabled, master === null, label);
                assert.equal(got.disabledBy, master, label);
                // The lock is read whatever the master says: it is what keeps a direction off once the master is back on.
                assert.equal(got.outbound.envLocked, outboundDisabled, label);
                assert.equal(got.inbound.envLocked, inboundDisabled, label);
                if (master !== null) {
                  assert.deepEqual(got.outbound, offBy(master, outboundDisabled), label);
                  assert.deepEqual(got.inbound, offBy(master, inboundDisabled), label);
                } else {
                  assert.equal(got.outbound.enabled, !outboundDisabled && poolOutboundEnabled, label);
                  assert.equal(got.inbound.enabled, !inboundDisabled && poolInboundEnabled, label);
                }
                checked += 1;
              }
    assert.equal(checked, 64);
  });
});
