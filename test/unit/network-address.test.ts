import { describe, expect, it } from 'vitest';
import {
  type AddressRange,
  classifyAddress,
  classifyHost,
  hostOfUrl,
  REDACTED,
  redactUrl,
  UNPARSEABLE_URL,
} from '../../src/model/network-address.js';

const ipOf = (url: string) => {
  const host = hostOfUrl(url);
  if (host.kind !== 'ip') throw new Error(`${url} named ${host.hostname}, not an address`);
  return { address: host.address, range: host.range };
};

describe('hostOfUrl: every spelling of an address is the address', () => {
  it.each([
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.0.0.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::1]/', '::1'],
    // IPv4-mapped IPv6 is the IPv4 address, whichever way it is written.
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1'],
    ['http://[::ffff:7f00:1]/', '127.0.0.1'],
    ['https://user@[0:0:0:0:0:0:0:1]:8443/p', '::1'],
  ])('%s is loopback %s', (url, address) => {
    expect(ipOf(url)).toEqual({ address, range: 'loopback' });
  });

  it.each<[string, string, AddressRange]>([
    ['http://0.0.0.0/', '0.0.0.0', 'unspecified'],
    ['http://0/', '0.0.0.0', 'unspecified'],
    ['http://[::]/', '::', 'unspecified'],
    ['http://10.0.0.1/', '10.0.0.1', 'private'],
    ['http://10.255.255.255/', '10.255.255.255', 'private'],
    ['http://172.16.0.1/', '172.16.0.1', 'private'],
    ['http://172.31.255.254/', '172.31.255.254', 'private'],
    ['http://172.15.255.255/', '172.15.255.255', 'public'],
    ['http://172.32.0.1/', '172.32.0.1', 'public'],
    ['http://192.168.1.1/', '192.168.1.1', 'private'],
    ['http://100.64.0.1/', '100.64.0.1', 'carrierGradeNat'],
    ['http://100.127.255.255/', '100.127.255.255', 'carrierGradeNat'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'linkLocal'],
    ['http://0xa9fea9fe/', '169.254.169.254', 'linkLocal'],
    ['http://[fe80::1]/', 'fe80::1', 'linkLocal'],
    ['http://[fd00::1]/', 'fd00::1', 'private'],
    ['http://[fc00::1]/', 'fc00::1', 'private'],
    ['http://[::ffff:10.0.0.1]/', '10.0.0.1', 'private'],
    ['http://224.0.0.1/', '224.0.0.1', 'multicast'],
    ['http://[ff02::1]/', 'ff02::1', 'multicast'],
    ['http://255.255.255.255/', '255.255.255.255', 'broadcast'],
    ['http://192.0.2.1/', '192.0.2.1', 'reserved'],
    ['http://240.0.0.1/', '240.0.0.1', 'reserved'],
    ['http://[2001:db8::1]/', '2001:db8::1', 'reserved'],
    // NAT64's well-known prefix is the embedded IPv4 address.
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1', 'loopback'],
    ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['http://[64:ff9b::808:808]/', '64:ff9b::808:808', 'public'],
    // Other IPv4-embedding ranges are refused whatever they embed.
    ['http://[64:ff9b:1::808:808]/', '64:ff9b:1::808:808', 'reserved'],
    ['http://[2002:808:808::1]/', '2002:808:808::1', 'reserved'],
    ['http://[2001::1]/', '2001::1', 'reserved'],
    ['http://[::ffff:0:808:808]/', '::ffff:0:808:808', 'reserved'],
    // Deprecated IPv4-compatible form, outside 2000::/3.
    ['http://[::7f00:1]/', '::7f00:1', 'reserved'],
    ['http://8.8.8.8/', '8.8.8.8', 'public'],
    ['http://93.184.216.34/', '93.184.216.34', 'public'],
    ['http://[2606:4700::1111]/', '2606:4700::1111', 'public'],
    ['http://[2606:4700:0:0:0:0:0:1111]/', '2606:4700::1111', 'public'],
  ])('%s is %s (%s)', (url, address, range) => {
    expect(ipOf(url)).toEqual({ address, range });
  });

  it('a name is a name, lower-cased and punycoded, whatever it resolves to', () => {
    expect(hostOfUrl('http://LOCALHOST:8080/')).toEqual({ kind: 'name', hostname: 'localhost' });
    expect(hostOfUrl('https://bücher.example/x')).toEqual({
      kind: 'name',
      hostname: 'xn--bcher-kva.example',
    });
    expect(hostOfUrl('http://127.0.0.1.nip.io/')).toEqual({ kind: 'name', hostname: '127.0.0.1.nip.io' });
  });

  it('refuses what it cannot read as an http(s) host', () => {
    expect(() => hostOfUrl('not a url')).toThrow(TypeError);
    // Another scheme's host is not normalised: 0x7f.1 would be read as a name.
    expect(() => hostOfUrl('ftp://0x7f.1/')).toThrow(TypeError);
    expect(() => hostOfUrl('http://1.2.3.4.5/')).toThrow(TypeError);
  });
});

describe('classifyAddress and classifyHost', () => {
  it('gives the canonical form and family', () => {
    expect(classifyAddress('2606:4700:0000::1111')).toEqual({
      address: '2606:4700::1111',
      family: 6,
      range: 'public',
    });
    expect(classifyAddress('::ffff:169.254.169.254')).toEqual({
      address: '169.254.169.254',
      family: 4,
      range: 'linkLocal',
    });
    expect(classifyAddress('FE80::1%eth0')).toEqual({
      address: 'fe80::1%eth0',
      family: 6,
      range: 'linkLocal',
    });
  });

  it('reads only unambiguous spellings; URL parsing normalises the rest', () => {
    for (const loose of ['127.1', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '[::1]', 'localhost', ''])
      expect(() => classifyAddress(loose), loose).toThrow(TypeError);
  });

  it('takes a URL hostname with or without brackets', () => {
    expect(classifyHost('[::1]')).toMatchObject({ kind: 'ip', address: '::1', range: 'loopback' });
    expect(classifyHost('::1')).toMatchObject({ kind: 'ip', address: '::1', range: 'loopback' });
    expect(classifyHost(new URL('http://0x7f.1/').hostname)).toMatchObject({ kind: 'ip', range: 'loopback' });
    expect(classifyHost('sink.example')).toEqual({ kind: 'name', hostname: 'sink.example' });
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://h.example/p?token=s3cret&x=1', `https://h.example/p?token=${REDACTED}&x=${REDACTED}`],
    ['https://h.example/p?s3cret', `https://h.example/p?${REDACTED}`],
    ['https://h.example/p?a=&&b=c=d', `https://h.example/p?a=${REDACTED}&b=${REDACTED}`],
    ['https://user:pw@h.example:8443/p#frag', 'https://h.example:8443/p'],
    ['https://h.example/p?k=v#frag', `https://h.example/p?k=${REDACTED}`],
    ['https://h.example/p?', 'https://h.example/p'],
    ['http://H.EXAMPLE/a%20b', 'http://h.example/a%20b'],
    ['not a url?token=s3cret', UNPARSEABLE_URL],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('never shows a query value, user name or password', () => {
    const shown = redactUrl('https://alice:pw-s3cret@h.example/hook?sig=s3cret&list=a,s3cret&s3cret');
    expect(shown).not.toMatch(/s3cret|alice/);
  });
});
