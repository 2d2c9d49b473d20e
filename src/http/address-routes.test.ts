import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { probeRequestAddress } from './address-routes.js';

describe('POST /peers/probe body', () => {
  it('reads the address, and nothing from a body that names none', () => {
    assert.equal(probeRequestAddress({ address: '192.168.1.42:5002' }), '192.168.1.42:5002');
    assert.equal(probeRequestAddress(undefined), undefined);
  });

  const refused: readonly { name: string; body: unknown; message: RegExp }[] = [
    {
      name: 'a port beside the address (it was dropped, and the default ports dialled)',
      body: { address: '192.168.1.42', port: 5002 },
      message: /^port is not taken here .*nothing was dialled$/,
    },
    { name: 'a body that is not an object', body: ['192.168.1.42'], message: /^the body must be a JSON object/ },
  ];
  for (const c of refused)
    it(`refuses ${c.name}`, () =>
      assert.throws(
        () => probeRequestAddress(c.body),
        (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_BAD_REQUEST' && c.message.test(err.message),
      ));
});
