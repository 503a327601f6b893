// The benchmark figure, docs/benchmarks-ratio.svg: the gateway's throughput
// as a fraction of calling the agent directly, one horizontal bar per method
// and binding pair (both bindings named), grouped into translated unary calls
// and same-binding pass-through, on a labeled ratio axis with ticks and each
// target drawn as a named line. Written by `npm run bench` from its results
// and by `npm run docs` from the tables of docs/benchmarks.md (the same
// figures), so the picture cannot drift from the page.

export interface RatioBar {
  /** The group the bar belongs to; each group has its own target. */
  group: 'translated' | 'passThrough';
  method: string;
  inbound: string;
  upstream: string;
  ratio: number;
}

const TARGETS = { translated: 0.5, passThrough: 0.8 } as const;
const GROUP_TITLES = {
  translated: 'Unary calls, decoded and re-encoded (target ≥ 0.5× direct)',
  passThrough: 'Same-binding pass-through, SendMessage (target ≥ 0.8× direct)',
} as const;
const NAMES: Record<string, string> = { JSONRPC: 'JSON-RPC', 'HTTP+JSON': 'REST', GRPC: 'gRPC' };
const name = (b: string) => NAMES[b] ?? b;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The bars of docs/benchmarks.md's tables ("Unary calls per binding pair" and "Same-binding pass-through"). */
export function barsFromBenchmarksPage(md: string): RatioBar[] {
  const bars: RatioBar[] = [];
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  let table: 'unary' | 'pass' | undefined;
  for (const line of md.split('\n')) {
    if (line.startsWith('#'))
      table = /Unary calls/.test(line) ? 'unary' : /pass-through/.test(line) ? 'pass' : undefined;
    if (!table || !line.startsWith('|') || /^\| (method|binding|:--)/.test(line)) continue;
    const c = cells(line);
    if (table === 'unary') {
      const [inbound, upstream] = c[1]!.split(' → ');
      bars.push({ group: 'translated', method: c[0]!, inbound: inbound!, upstream: upstream!, ratio: Number(c[4]) });
    } else {
      bars.push({ group: 'passThrough', method: 'SendMessage', inbound: c[0]!, upstream: c[0]!, ratio: Number(c[3]) });
    }
  }
  return bars;
}

/** The figure (SVG text) for these bars. */
export function ratioChartSvg(bars: RatioBar[]): string {
  const rowH = 22;
  const labelW = 250;
  const plotW = 460;
  const left = labelW + 20;
  const max = Math.max(1.2, Math.ceil(Math.max(...bars.map((b) => b.ratio)) * 5) / 5);
  const x = (v: number) => left + (v / max) * plotW;
  const out: string[] = [];
  let y = 78;
  const groups = (['translated', 'passThrough'] as const).filter((g) => bars.some((b) => b.group === g));
  const top = y;
  for (const g of groups) {
    out.push(`<text x="10" y="${y + 14}" font-size="13" font-weight="bold">${esc(GROUP_TITLES[g])}</text>`);
    y += 24;
    const groupTop = y - 4;
    for (const b of bars.filter((r) => r.group === g)) {
      const label =
        g === 'passThrough'
          ? `${name(b.inbound)} → ${name(b.upstream)}`
          : `${b.method}  ${name(b.inbound)} → ${name(b.upstream)}`;
      const met = b.ratio >= TARGETS[g];
      const w = Math.max(1, x(Math.min(b.ratio, max)) - left);
      out.push(
        `<text x="${left - 8}" y="${y + 14}" text-anchor="end" font-size="12">${esc(label)}</text>`,
        `<rect x="${left}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${met ? '#2e8b57' : '#d9663a'}"/>`,
        `<text x="${(left + w + 5).toFixed(1)}" y="${y + 14}" font-size="11">${b.ratio.toFixed(2)}×</text>`,
      );
      y += rowH;
    }
    const tx = x(TARGETS[g]);
    out.push(
      `<line x1="${tx}" y1="${groupTop}" x2="${tx}" y2="${y + 2}" stroke="#222" stroke-width="1.5" stroke-dasharray="5 3"/>`,
      `<text x="${tx + 4}" y="${y + 14}" font-size="11" fill="#222">target ${TARGETS[g]}× (${g === 'translated' ? 'translated' : 'pass-through'})</text>`,
    );
    y += 30;
  }
  const axisY = y;
  const ticks: string[] = [];
  for (let v = 0; v <= max + 1e-9; v += 0.2) {
    const tx = x(v).toFixed(1);
    ticks.push(
      `<line x1="${tx}" y1="${top}" x2="${tx}" y2="${axisY}" stroke="#ddd"/>`,
      `<line x1="${tx}" y1="${axisY}" x2="${tx}" y2="${axisY + 5}" stroke="#222"/>`,
      `<text x="${tx}" y="${axisY + 18}" text-anchor="middle" font-size="11">${v.toFixed(1)}</text>`,
    );
  }
  const width = left + plotW + 150;
  const height = axisY + 70;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">
<rect width="${width}" height="${height}" fill="#fff"/>
<text x="10" y="24" font-size="16" font-weight="bold">a2a-gateway throughput relative to calling the agent directly</text>
<text x="10" y="44" font-size="12">One bar per method and binding pair (caller's binding → agent's binding); 1.0× = as fast as direct.</text>
<rect x="10" y="54" width="12" height="12" fill="#2e8b57"/><text x="27" y="64" font-size="11">target met</text>
<rect x="100" y="54" width="12" height="12" fill="#d9663a"/><text x="117" y="64" font-size="11">target not met</text>
${ticks.join('\n')}
${out.join('\n')}
<line x1="${left}" y1="${axisY}" x2="${left + plotW}" y2="${axisY}" stroke="#222"/>
<text x="${left + plotW / 2}" y="${axisY + 40}" text-anchor="middle" font-size="12">gateway throughput ÷ direct throughput (requests/s ÷ requests/s)</text>
</svg>
`;
}
