// The URL screen (src/policy/url-screen.ts): every entry of the IANA IPv4 and
// IPv6 special-purpose registries (typed here by hand, not read from the
// module), multicast and the forms issue 12 item 9 names are refused in every
// textual variant WHATWG URL parsing accepts; public addresses and names pass.
// fast-check: random addresses in each range, in random forms, are refused;
// random addresses anywhere are refused exactly when an expected range holds them.
import { BlockList } from 'node:net';
import fc from 'fast-check';
import t from 'tap';
import { unsafeUrl } from '../../src/policy/url-screen.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);

// prettier-ignore
const V4_REFUSED = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.0.0/29', '192.0.0.8/32', '192.0.0.9/32', '192.0.0.10/32', '192.0.0.170/31', '192.0.2.0/24',
  '192.31.196.0/24', '192.52.193.0/24', '192.88.99.0/24', '192.168.0.0/16', '192.175.48.0/24', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4', '255.255.255.255/32',
];
// IPv6 ranges refused whatever they hold (the ones embedding IPv4 are tested on what they carry)
// prettier-ignore
const V6_REFUSED = [
  '::/128', '::1/128', '::/96', '64:ff9b:1::/48', '100::/64', '2001::/23', '2001::/32', '2001:1::1/128',
  '2001:1::2/128', '2001:1::3/128', '2001:2::/48', '2001:3::/32', '2001:4:112::/48', '2001:10::/28', '2001:20::/28',
  '2001:30::/28', '2001:db8::/32', '2620:4f:8000::/48', '3fff::/20', '5f00::/16', 'fc00::/7', 'fe80::/10',
  'fec0::/10', 'ff00::/8',
];

// --- address arithmetic, independent of the module ---
const v4Int = (s: string): bigint => s.split('.').reduce((a, o) => (a << 8n) | BigInt(o), 0n);
const v4Text = (n: bigint): string => [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join('.');
function v6Int(s: string): bigint {
  const [h, tl] = s.split('::') as [string, string | undefined];
  const head = h ? h.split(':') : [];
  const tail = tl ? tl.split(':') : [];
  const all = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
}
const groups = (n: bigint): bigint[] => [...Array(8).keys()].map((i) => (n >> BigInt(112 - 16 * i)) & 0xffffn);
function block(cidr: string): { v6: boolean; first: bigint; last: bigint } {
  const [net, bits] = cidr.split('/') as [string, string];
  const v6 = net.includes(':');
  const size = (v6 ? 128n : 32n) - BigInt(bits);
  const first = v6 ? v6Int(net) : v4Int(net);
  return { v6, first, last: first + (1n << size) - 1n };
}
const inside = (n: bigint, cidrs: readonly string[], v6: boolean): boolean =>
  cidrs.some((c) => {
    const b = block(c);
    return b.v6 === v6 && n >= b.first && n <= b.last;
  });

// --- textual variants ---
const v6Forms = (n: bigint): string[] => {
  const g = groups(n).map((x) => x.toString(16));
  const full = g.join(':');
  const quad = `${g.slice(0, 6).join(':')}:${v4Text(n & 0xffffffffn)}`;
  const compressed = full.replace(/(^|:)0(:0)+(:|$)/, '::');
  return [full, full.toUpperCase(), g.map((x) => x.padStart(4, '0')).join(':'), quad, compressed];
};
const v4Forms = (n: bigint): string[] => {
  const [a, b, c, d] = [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n) as [bigint, bigint, bigint, bigint];
  const dotted = v4Text(n);
  const hi = (n >> 16n).toString(16);
  const lo = (n & 0xffffn).toString(16);
  return [
    dotted,
    `${dotted}.`,
    n.toString(),
    `0x${n.toString(16)}`,
    `0${n.toString(8)}`,
    [a, b, c, d].map((x) => `0x${x.toString(16)}`).join('.'),
    [a, b, c, d].map((x) => `0${x.toString(8)}`).join('.'),
    `${a}.${b}.${(c << 8n) | d}`,
    `${a}.${(b << 16n) | (c << 8n) | d}`,
    [...dotted].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join(''),
    `[::ffff:${dotted}]`,
    `[::ffff:${hi}:${lo}]`,
    `[0:0:0:0:0:FFFF:${hi}:${lo}]`,
    `[64:ff9b::${dotted}]`,
    `[64:ff9b::${hi}:${lo}]`,
    `[2002:${hi}:${lo}::1]`,
    `[2002:${hi}:${lo}:ffff:ffff:ffff:ffff:ffff]`,
    `[::${dotted}]`,
  ];
};
const url = (host: string, i: number): string =>
  [`http://${host}/`, `https://${host}:8443/x?y#z`, `http://user:pw@${host}/`, `HTTP://${host}`][i % 4]!;

t.test('WHATWG URL parsing normalizes numeric hosts, and the screen relies on it', async (tt) => {
  for (const h of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', '0x7f000001', '127.0.0.1.', '%31%32%37.0.0.1'])
    tt.equal(new URL(`http://${h}/`).hostname, '127.0.0.1', `${h} is 127.0.0.1`);
  tt.equal(new URL('http://１２７.０.０.１/').hostname, '127.0.0.1', 'full-width digits');
  tt.equal(new URL('http://[::127.0.0.1]/').hostname, '[::7f00:1]', 'IPv6 serialized as hex groups');
  tt.equal(new URL('http://[0:0:0:0:0:FFFF:7F00:0001]/').hostname, '[::ffff:7f00:1]', 'compressed, lowercase');
  for (const h of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', '127.0.0.1.', '%31%32%37.0.0.1', '１２７.０.０.１'])
    tt.match(unsafeUrl(`http://${h}/`), '127.0.0.0/8 (loopback)', `http://${h}/ refused as loopback`);
});

t.test('every registry entry: first, middle and last address', async (tt) => {
  for (const cidr of [...V4_REFUSED, ...V6_REFUSED]) {
    const { v6, first, last } = block(cidr);
    for (const n of [first, first + (last - first) / 2n, last]) {
      const host = v6
        ? `[${groups(n)
            .map((x) => x.toString(16))
            .join(':')}]`
        : v4Text(n);
      tt.ok(unsafeUrl(`http://${host}/`), `${cidr}: ${host} refused`);
    }
  }
  tt.match(unsafeUrl('http://198.19.1.1/'), '198.19.1.1 is in 198.18.0.0/15 (benchmarking)', 'the reason names it');
  tt.match(unsafeUrl('http://192.0.0.9/'), '192.0.0.9/32', 'the most specific entry is named');
});

t.test('IPv6 forms carrying an IPv4 address are screened by that address', async (tt) => {
  for (const host of ['[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '[64:ff9b::7f00:1]', '[64:ff9b::10.0.0.1]'])
    tt.ok(unsafeUrl(`http://${host}/`), `${host} refused`);
  for (const host of ['[2002:7f00:1::]', '[2002:c0a8:101::1]', '[2002:a9fe:a9fe:1::1]'])
    tt.ok(unsafeUrl(`http://${host}/`), `${host} refused`);
  tt.match(unsafeUrl('http://[64:ff9b::7f00:1]/'), 'carries 127.0.0.1, in 127.0.0.0/8 (loopback)');
  for (const host of ['[::ffff:8.8.8.8]', '[64:ff9b::808:808]', '[2002:808:808::1]'])
    tt.equal(unsafeUrl(`http://${host}/`), undefined, `${host} (public IPv4 inside) passes`);
  tt.ok(unsafeUrl('http://[::8.8.8.8]/'), 'IPv4-compatible is deprecated: refused whatever it holds');
  tt.ok(unsafeUrl('http://[64:ff9b:1::808:808]/'), 'NAT64 local-use: refused whatever it holds');
});

t.test('the forms issue 12 names', async (tt) => {
  // prettier-ignore
  for (const u of [
    'http://198.18.0.1/', 'http://198.19.255.254/', 'http://224.0.0.251/', 'http://239.255.255.250:1900/',
    'http://240.0.0.1/', 'http://255.255.255.255/', 'http://localhost./', 'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::]/', 'http://169.254.169.254/latest/meta-data/',
    'file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'http://[ff02::1]/', 'http://[fe80::1]/',
  ])
    tt.ok(unsafeUrl(u), `${u} refused`);
});

t.test('schemes other than http and https', async (tt) => {
  for (const u of ['file:///etc/passwd', 'gopher://example.com/', 'ftp://example.com/f', 'data:text/plain,hi'])
    tt.match(unsafeUrl(u), 'is not allowed (http or https only)', u);
  for (const u of ['javascript:alert(1)', 'ws://example.com/', 'blob:https://example.com/x', 'dict://example.com/'])
    tt.match(unsafeUrl(u), 'is not allowed', u);
  tt.equal(
    unsafeUrl('not a url'),
    'contains whitespace, a control character or a backslash (URL parsers read those differently)',
  );
  tt.equal(unsafeUrl('no-scheme.example.com/x'), 'not a URL');
});

t.test('userinfo and text that parsers read differently', async (tt) => {
  for (const u of [
    'http://a@127.0.0.1/',
    'http://user:pw@10.0.0.1/',
    'http://8.8.8.8@127.0.0.1/',
    'http://x:8.8.8.8@[::1]/',
  ])
    tt.ok(unsafeUrl(u), `${u} refused: the host is after the last '@'`);
  tt.equal(unsafeUrl('http://127.0.0.1@example.com/'), undefined, 'userinfo naming loopback, host public: passes');
  tt.match(unsafeUrl('http://a@b@example.com/'), "userinfo holds an '@'", 'two @: refused');
  for (const u of [
    'http://example.com\\@127.0.0.1/',
    'http://exa\tmple.com/',
    ' http://example.com/',
    'http://example.com/\n',
    'http://example.com/\u0000',
  ])
    tt.match(unsafeUrl(u), 'URL parsers read those differently', JSON.stringify(u));
});

t.test('local names, with or without final dots', async (tt) => {
  for (const h of [
    'localhost',
    'localhost.',
    'LOCALHOST',
    'a.localhost',
    'a.b.localhost.',
    'localhost..',
    'ｌｏｃａｌｈｏｓｔ',
  ])
    tt.match(unsafeUrl(`http://${h}:8080/`), 'is a loopback name', h);
  for (const h of [
    'printer.local',
    'api.svc.cluster.local.',
    'router.home.arpa',
    'metadata.google.internal',
    'metadata',
    'intranet.',
    'redis',
  ])
    tt.ok(unsafeUrl(`http://${h}/`), `${h} refused`);
  for (const h of ['localhost.example.com', 'xlocalhost.com', 'local.example', 'internal.example.org', 'example.com.'])
    tt.equal(unsafeUrl(`http://${h}/`), undefined, `${h} passes`);
});

t.test('public addresses and names pass, also right next to refused ranges', async (tt) => {
  // prettier-ignore
  for (const u of [
    'https://example.com/x', 'http://8.8.8.8/', 'http://[2606:4700::1]/', 'https://sub.example.co.uk:8443/a?b=c#d',
    'http://9.255.255.255/', 'http://11.0.0.0/', 'http://100.63.255.255/', 'http://100.128.0.0/',
    'http://126.255.255.255/', 'http://128.0.0.0/', 'http://169.253.255.255/', 'http://169.255.0.0/',
    'http://172.15.255.255/', 'http://172.32.0.0/', 'http://192.0.1.0/', 'http://192.0.3.0/', 'http://192.88.98.255/',
    'http://192.167.255.255/', 'http://192.169.0.0/', 'http://198.17.255.255/', 'http://198.20.0.0/',
    'http://223.255.255.255/', 'http://[2001:200::1]/', 'http://[2001:db9::1]/', 'http://[2003::1]/',
    'http://[2a00:1450:4001::200e]/', 'http://[3fff:1000::1]/',
  ])
    tt.equal(unsafeUrl(u), undefined, `${u} passes`);
  tt.match(unsafeUrl('http://[4000::1]/'), 'outside global unicast 2000::/3', 'IPv6 outside 2000::/3');
});

t.test('allow: an operator exempts its own addresses', async (tt) => {
  const allow = new BlockList();
  allow.addSubnet('10.1.0.0', 16, 'ipv4');
  allow.addSubnet('fd00:1::', 32, 'ipv6');
  for (const u of ['http://10.1.2.3/', 'http://[::ffff:10.1.2.3]/', 'http://[fd00:1::5]/'])
    tt.equal(unsafeUrl(u, { allow }), undefined, `${u} allowed`);
  for (const u of ['http://10.2.0.1/', 'http://127.0.0.1/', 'http://[fd00:2::5]/', 'file:///x'])
    tt.ok(unsafeUrl(u, { allow }), `${u} still refused`);
});

t.test('property: any address inside a refused range, in any form, is refused', async () => {
  const v4Ranges = V4_REFUSED.map(block);
  const v6Ranges = V6_REFUSED.map(block);
  const within = (b: { first: bigint; last: bigint }) => fc.bigInt(b.first, b.last);
  fc.assert(
    fc.property(fc.constantFrom(...v4Ranges).chain(within), fc.nat(), fc.nat(), (n, form, shape) => {
      const forms = v4Forms(n);
      const u = url(forms[form % forms.length]!, shape);
      return unsafeUrl(u) !== undefined;
    }),
    { numRuns: RUNS },
  );
  fc.assert(
    fc.property(fc.constantFrom(...v6Ranges).chain(within), fc.nat(), fc.nat(), (n, form, shape) => {
      const forms = v6Forms(n);
      return unsafeUrl(url(`[${forms[form % forms.length]!}]`, shape)) !== undefined;
    }),
    { numRuns: RUNS },
  );
});

t.test('property: a random address is refused exactly when an expected range holds it', async () => {
  fc.assert(
    fc.property(fc.bigInt(0n, 0xffffffffn), (n) => {
      return (unsafeUrl(`http://${v4Text(n)}/`) !== undefined) === inside(n, V4_REFUSED, false);
    }),
    { numRuns: RUNS },
  );
  // IPv6: outside global unicast 2000::/3 all is refused but IPv4-mapped and NAT64 forms carrying a public
  // IPv4 address; draws spread over all of it and over blocks straddling the edges of refused ranges
  const regions = ['::/0', '2000::/3', '::fffe:0:0/95', '64:ff9b::/95', '2001::/22', '2001:db8::/31', '2002::/16'];
  const carried = new Set([0xffffn, 0x64ff9bn << 64n]); // ::ffff:0:0/96 and 64:ff9b::/96, shifted right by 32
  function expected(n: bigint): boolean {
    if (carried.has(n >> 32n)) return inside(n & 0xffffffffn, V4_REFUSED, false);
    if (n >> 112n === 0x2002n) return inside((n >> 80n) & 0xffffffffn, V4_REFUSED, false);
    return n >> 125n !== 1n || inside(n, V6_REFUSED, true);
  }
  fc.assert(
    fc.property(
      fc
        .constantFrom(...[...regions, '2620:4f:8000::/47', '3fff::/19'].map(block))
        .chain((b) => fc.bigInt(b.first, b.last)),
      (n) => (unsafeUrl(`http://[${v6Forms(n)[0]}]/`) !== undefined) === expected(n),
    ),
    { numRuns: RUNS },
  );
});
