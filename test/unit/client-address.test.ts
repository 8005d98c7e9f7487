import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress } from '../../service/net/client-address.js';

describe('one client, as per-address limits count it (service/net/client-address.ts)', () => {
  it('counts an IPv4 address as itself, and an IPv4-mapped IPv6 address as its IPv4 address', () => {
    assert.equal(clientAddress('127.0.0.2'), '127.0.0.2');
    assert.equal(clientAddress('::ffff:127.0.0.2'), '127.0.0.2');
    assert.equal(clientAddress('::FFFF:10.1.2.3'), '10.1.2.3');
  });

  it('counts every IPv6 address of one /64 as one client, however it is written', () => {
    const one = clientAddress('2001:db8:1:2::1');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::abcd', '2001:db8:1:2:0:0:0:7%eth0'])
      assert.equal(clientAddress(same), one, same);
    assert.notEqual(clientAddress('2001:db8:1:3::1'), one, 'the next /64 is another client');
    assert.equal(clientAddress('::1'), '0:0:0:0::/64');
  });
});
