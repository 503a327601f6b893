// docs/images/architecture.svg: a call's path through the gateway — the three
// inbound bindings (1.0 and 0.3), the inbound edge that makes a Call, the
// pipeline's stages in the order src/pipeline/pipeline.ts runs them (its
// STAGE_NAMES: a stage without a caption here fails the generation, and
// test/unit/docs.test.ts holds the picture to the list both ways), the
// envelope `decode` builds, and the upstream clients per binding. Written by
// `npm run docs`.
import { STAGE_NAMES } from '../../src/pipeline/pipeline.js';

/** One line per stage: what it does to a call (src/pipeline/stages/*.ts). */
const CAPTIONS: Record<string, string> = {
  observe: 'trace context; at the end one log line, metrics, span',
  route: 'final route by host, path prefix, tenant; body limit',
  authenticate: "API key, bearer JWT or mTLS: the caller's identity",
  rateLimit: 'per route, or per caller (identity, else peer)',
  decode: 'A2A-Version, extensions; request → envelope',
  streamSlot: "a stream takes one of the route's stream slots",
  validate: 'REQUIRED fields, string lengths, SSRF guard',
  capabilities: "checks against the agent's card (§3.3.4)",
  upstreamPolicy: 'credentials, tenant policy, Via hop (loops)',
  rewriteAnswer: "extended card gets the gateway's interfaces",
  placeEndpoint: "the agent's replica: task affinity, balancing, health",
  selectUpstream: 'the configured interface, or auto from the card',
  send: 'to the upstream client, or the pass-through relay',
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function box(x: number, y: number, w: number, h: number, fill: string, lines: Array<[string, string]>): string {
  const text = lines
    .map(([t, style], i) => `<text x="${x + 10}" y="${y + 18 + i * 15}" ${style}>${esc(t)}</text>`)
    .join('');
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="${fill}" stroke="#456"/>${text}`;
}

function arrow(x1: number, y1: number, x2: number, y2: number, dashed = false): string {
  return `<path d="M${x1} ${y1} C${(x1 + x2) / 2} ${y1} ${(x1 + x2) / 2} ${y2} ${x2} ${y2}" fill="none" stroke="#456" stroke-width="1.4" marker-end="url(#head)"${dashed ? ' stroke-dasharray="5 3"' : ''}/>`;
}

const B = 'font-weight="bold" font-size="13"';
const S = 'font-size="11" fill="#333"';
const M = 'font-family="Menlo, Consolas, monospace" font-size="11" fill="#333"';

export function architectureSvg(): string {
  const missing = STAGE_NAMES.filter((s) => !(s in CAPTIONS));
  if (missing.length) throw new Error(`caption the pipeline stages ${missing.join(', ')} in architecture-svg.ts`);
  const out: string[] = [];
  const stageX = 440;
  const stageW = 400;
  const top = 96;
  const step = 38;
  const stageY = (i: number) => top + i * step;
  // callers
  const callers: Array<[string, string, string]> = [
    ['JSON-RPC 2.0', 'POST {prefix}', '0.3: message/send, tasks/get, …'],
    ['HTTP+JSON (REST)', '/message:send, /tasks/{id}', '0.3: /v1/message:send, …'],
    ['gRPC', 'lf.a2a.v1.A2AService', '0.3: a2a.v1.A2AService'],
  ];
  callers.forEach(([name, path, v03], i) => {
    const y = 110 + i * 120;
    out.push(
      box(20, y, 200, 70, '#eef4fb', [
        [name, B],
        [path, M],
        [v03, S],
      ]),
    );
    out.push(arrow(220, y + 35, 245, 288));
  });
  out.push(
    box(245, 220, 175, 136, '#f4f4f4', [
      ['inbound binding', B],
      ['bindings/*/inbound', M],
      ['reads the request head:', S],
      ['method, tenant, the', S],
      ['routes host and path', S],
      ['match → a Call', S],
      ['writes the answer back', S],
      ["in the caller's binding", S],
    ]),
  );
  out.push(arrow(420, 288, stageX, stageY(0) + 14));
  // the pipeline
  out.push(
    `<rect x="${stageX - 10}" y="${top - 30}" width="${stageW + 20}" height="${STAGE_NAMES.length * step + 34}" rx="8" fill="none" stroke="#89a" stroke-dasharray="4 3"/>`,
    `<text x="${stageX}" y="${top - 12}" ${B}>pipeline (src/pipeline): every call, in this order</text>`,
  );
  STAGE_NAMES.forEach((name, i) => {
    const y = stageY(i);
    out.push(
      `<rect x="${stageX}" y="${y}" width="${stageW}" height="28" rx="5" fill="#fff7e0" stroke="#b8860b"/>`,
      `<text class="stage" x="${stageX + 10}" y="${y + 18}" font-family="Menlo, Consolas, monospace" font-size="12" font-weight="bold">${name}</text>`,
      `<text x="${stageX + 128}" y="${y + 18}" ${S}>${esc(CAPTIONS[name]!)}</text>`,
    );
    if (i > 0)
      out.push(
        `<line x1="${stageX + 50}" y1="${y - 10}" x2="${stageX + 50}" y2="${y}" stroke="#b8860b" marker-end="url(#head)"/>`,
      );
  });
  // the envelope, built by decode and carried to send
  const decodeY = stageY(STAGE_NAMES.indexOf('decode'));
  const sendY = stageY(STAGE_NAMES.indexOf('send'));
  out.push(
    box(880, decodeY - 40, 300, 112, '#eaf6ea', [
      ['envelope (a2a.gateway.v1.Envelope)', B],
      ['method (one of the 11 A2A operations)', S],
      ['service parameters: version, extensions,', S],
      ['  forwarded headers', S],
      ['tenant; one typed lf.a2a.v1 request', S],
      ['the same for every binding and version', S],
    ]),
    arrow(stageX + stageW, decodeY + 14, 880, decodeY + 14),
  );
  // upstream clients and agents
  const clients: Array<[string, string]> = [
    ['JSON-RPC client', 'bindings/jsonrpc/outbound'],
    ['REST client', 'bindings/rest/outbound'],
    ['gRPC client', 'bindings/grpc/outbound'],
  ];
  clients.forEach(([name, file], i) => {
    const y = sendY - 130 + i * 76;
    out.push(
      box(880, y, 190, 56, '#eef4fb', [
        [name, B],
        [file, M],
        ['1.0, or the 0.3 dialect', S],
      ]),
    );
    out.push(arrow(stageX + stageW, sendY + 14, 880, y + 28));
    out.push(
      `<rect x="1100" y="${y + 8}" width="80" height="40" rx="6" fill="#fff" stroke="#456"/>`,
      `<text x="1140" y="${y + 33}" text-anchor="middle" ${B}>agent</text>`,
    );
    out.push(`<line x1="1070" y1="${y + 28}" x2="1100" y2="${y + 28}" stroke="#456" marker-end="url(#head)"/>`);
  });
  out.push(
    `<text x="880" y="${sendY + 110}" ${S}>A pass-through route's same-binding calls skip the</text>`,
    `<text x="880" y="${sendY + 125}" ${S}>envelope: the relay forwards the bytes as they came.</text>`,
  );
  const height = sendY + 175;
  out.push(
    `<text x="20" y="${height - 30}" ${S}>A stage a route does not configure (auth, rate limit, stream cap, …) is left out of its chain. Answers and stream events come back</text>`,
    `<text x="20" y="${height - 14}" ${S}>the same way: the upstream client reads the agent's binding, the inbound binding writes the caller's (errors from one catalogue).</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="${height}" viewBox="0 0 1200 ${height}" font-family="Helvetica, Arial, sans-serif">
<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#456"/></marker></defs>
<rect width="1200" height="${height}" fill="#fff"/>
<text x="20" y="30" font-size="18" font-weight="bold">A call's path through a2a-gateway</text>
<text x="20" y="50" ${S}>Any of three bindings in (A2A 1.0 or 0.3) → one pipeline → one envelope → the agent's own binding out</text>
${out.join('\n')}
</svg>
`;
}
