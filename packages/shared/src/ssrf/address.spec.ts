import { describe, expect, it } from '@jest/globals';
import {
  type BlockedClass,
  cidrContains,
  classifyAddress,
  isAddressAllowed,
  normaliseHost,
  parseCidrList,
  parseHostPort,
} from './address.js';

describe('normaliseHost', () => {
  // Legacy numeric spellings must come out as the address a WHATWG client would actually dial.
  const ips: Array<[input: string, address: string]> = [
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['127%2e0.0.1', '127.0.0.1'],
    ['１２７．０．０．１', '127.0.0.1'], // full-width digits and dots (IDNA mapping)
    ['10.1', '10.0.0.1'],
    ['0', '0.0.0.0'],
    ['3232235777', '192.168.1.1'],
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['[64:ff9b::169.254.169.254]', '64:ff9b::a9fe:a9fe'],
    ['[2606:4700:0:0:0:0:0:1]', '2606:4700::1'],
    ['[FE80::1]', 'fe80::1'],
    ['93.184.215.14', '93.184.215.14'],
  ];
  it.each(ips)('%s -> ip %s', (input, address) => {
    expect(normaliseHost(input)).toEqual({ kind: 'ip', address, family: address.includes(':') ? 6 : 4 });
  });

  const names: Array<[input: string, name: string]> = [
    ['localhost', 'localhost'],
    ['localhost.', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['Foo.Localhost', 'foo.localhost'],
    ['example.com.', 'example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['0x7f.example', '0x7f.example'], // does not end in a number, so it is a domain
  ];
  it.each(names)('%s -> name %s', (input, name) => {
    expect(normaliseHost(input)).toEqual({ kind: 'name', name });
  });

  const invalid = [
    '',
    '256.1.1.1',
    '4294967296',
    'foo.0x1', // ends in a number that is not a valid IPv4
    '09.1.1.1',
    'example.com:80',
    '[::1]:80',
    'evil.com@127.0.0.1',
    '127.0.0.1/x',
    '127.0.0.1 ',
    '127.0.0.\n1', // the URL parser would strip the newline; net would not
    '[::ffff:0x7f.1]',
    '[fe80::1%25eth0]',
    '[::1',
    '.',
  ];
  it.each(invalid)('rejects %j', (input) => {
    expect(() => normaliseHost(input)).toThrow(/host/i);
  });
});

describe('classifyAddress', () => {
  const vectors: Array<[ip: string, cls: BlockedClass | null]> = [
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', null],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['100.128.0.1', null],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['93.184.215.14', null],
    ['8.8.8.8', null],
    // IPv6
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd00::1', 'private'],
    ['fc00::1', 'private'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3 global unicast
    ['2606:4700::1', null],
    ['2a00:1450:4001::200e', null],
    // IPv6 wrappers of IPv4 are judged by the IPv4 they carry
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:93.184.215.14', null],
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['::93.184.215.14', 'reserved'], // IPv4-compatible is deprecated even for public IPv4
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (SIIT)
    ['64:ff9b::a9fe:a9fe', 'linkLocal'], // NAT64 -> 169.254.169.254
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::5db8:d70e', null], // NAT64 -> 93.184.215.14
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64 -> 10.0.0.1
    ['64:ff9b:1::5db8:d70e', 'reserved'], // local-use NAT64 is never a public target
    ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:a9fe:a9fe::', 'linkLocal'],
    ['2002:5db8:d70e::1', null],
    ['2001:0:7f00:1::', 'loopback'], // Teredo server 127.0.0.1
    ['2001:0:5db8:d70e::80ff:fffe', 'loopback'], // Teredo client 127.0.0.1 (XOR-obfuscated)
    ['2001:0:5db8:d70e::a2c6:e6f1', 'reserved'], // Teredo with public endpoints
  ];
  it.each(vectors)('%s -> %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it('throws for names', () => {
    expect(() => classifyAddress('example.com')).toThrow(/not an IP address/i);
  });
});

describe('isAddressAllowed', () => {
  const loopbackV4 = parseCidrList('127.0.0.0/8');
  const tenNet = parseCidrList('10.0.0.0/8');
  const vectors: Array<[ip: string, allowed: string, ok: boolean]> = [
    ['127.0.0.1', '', false],
    ['127.0.0.1', '127.0.0.0/8', true],
    ['127.0.0.1', '10.0.0.0/8', false],
    ['0x7f.1', '127.0.0.0/8', true],
    ['::ffff:127.0.0.1', '127.0.0.0/8', true], // mapped form of an allowed IPv4 is the same socket
    ['127.0.0.1', '::ffff:127.0.0.0/104', true], // ...and vice versa
    ['64:ff9b::7f00:1', '127.0.0.0/8', false], // NAT64 reaches a gateway, not our loopback
    ['64:ff9b::7f00:1', '64:ff9b::/96', true],
    ['127.0.0.1', '::/0', false], // "all of IPv6" must not smuggle in IPv4 via the mapped form
    ['::ffff:127.0.0.1', '::/0', false],
    ['2606:4700::1', '::/0', true],
    ['127.0.0.1', '::ffff:0:0/96', true],
    ['::1', '127.0.0.0/8', false],
    ['::1', '127.0.0.0/8,::1/128', true],
    ['fd12:3456::1', 'fd00::/8', true],
    ['10.20.30.40', '10.20.0.0/16', true],
    ['10.21.0.1', '10.20.0.0/16', false],
    ['93.184.215.14', '', true],
    ['2606:4700::1', '', true],
    ['not-an-ip', '0.0.0.0/0', false],
  ];
  it.each(vectors)('%s with %j -> %s', (ip, allowed, ok) => {
    expect(isAddressAllowed(ip, parseCidrList(allowed)).ok).toBe(ok);
  });

  it('explains refusals', () => {
    expect(isAddressAllowed('127.0.0.1', tenNet)).toEqual({ ok: false, reason: '127.0.0.1 is a loopback address' });
    expect(isAddressAllowed('::', [])).toEqual({ ok: false, reason: ':: is an unspecified address' });
    expect(isAddressAllowed('[64:ff9b::a9fe:a9fe]', loopbackV4)).toEqual({
      ok: false,
      reason: '64:ff9b::a9fe:a9fe embeds IPv4 169.254.169.254 (NAT64), a linkLocal address',
    });
  });
});

describe('parseCidrList', () => {
  it('parses a comma-separated list, ignoring whitespace and empty entries', () => {
    const list = parseCidrList(' 127.0.0.0/8 , ::1/128,,fd00::/8, ');
    expect(list.map((c) => c.text)).toEqual(['127.0.0.0/8', '::1/128', 'fd00::/8']);
    expect(list[0]).toMatchObject({ family: 4, network: '127.0.0.0', prefixLength: 8 });
    expect(list[1]).toMatchObject({ family: 6, network: '::1', prefixLength: 128 });
    expect(parseCidrList('')).toEqual([]);
    expect(parseCidrList('0.0.0.0/0,::/0').map((c) => c.prefixLength)).toEqual([0, 0]);
  });

  const bad: Array<[input: string, message: RegExp]> = [
    ['127.0.0.1', /missing "\/prefix"/],
    ['127.0.0.0/33', /0-32/],
    ['::/129', /0-128/],
    ['10.0.0.0/x', /decimal/],
    ['10.0.0.0/', /decimal/],
    ['localhost/8', /not a dotted-decimal IPv4 or an IPv6/],
    ['0x7f.0.0.0/8', /not a dotted-decimal/], // config must be unambiguous
    ['10.0.0.1/8', /host bits are set \(did you mean 10\.0\.0\.0\/8\?\)/],
    ['fe80::1%eth0/64', /not a dotted-decimal/],
    ['10.0.0.0/8;192.168.0.0/16', /decimal/],
  ];
  it.each(bad)('rejects %j', (input, message) => {
    expect(() => parseCidrList(input)).toThrow(message);
    expect(() => parseCidrList(input)).toThrow(/^ALLOWED_TARGET_CIDRS: Invalid CIDR/);
  });

  it('matches addresses with cidrContains', () => {
    const [net] = parseCidrList('172.16.0.0/12');
    expect(net && cidrContains(net, '172.31.1.1')).toBe(true);
    expect(net && cidrContains(net, '172.32.0.0')).toBe(false);
    expect(net && cidrContains(net, '::ffff:172.16.0.1')).toBe(false); // family-exact; isAddressAllowed handles mapped
  });
});

describe('parseHostPort', () => {
  const good: Array<[input: string, host: string, port: number]> = [
    ['db.example.com:5432', 'db.example.com', 5432],
    ['10.0.0.1:6379', '10.0.0.1', 6379],
    ['[::1]:22', '::1', 22],
    ['[2606:4700::1]:443', '2606:4700::1', 443],
    ['example.com:65535', 'example.com', 65535],
  ];
  it.each(good)('%s', (input, host, port) => {
    expect(parseHostPort(input)).toEqual({ host, port });
  });

  const bad = [
    'db.example.com',
    'db.example.com:0',
    'db.example.com:70000',
    'db.example.com:',
    ':5432',
    '::1:22',
    '[::1]22',
    'db.example.com:0x50',
    'db.example.com: 80',
    '',
  ];
  it.each(bad)('rejects %j', (input) => {
    expect(() => parseHostPort(input)).toThrow(/target/i);
  });
});
