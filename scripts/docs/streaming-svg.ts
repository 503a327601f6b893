// docs/images/streaming-errors.svg: a streaming call whose agent fails after
// two events, as a sequence (caller, gateway, agent) beside what the caller
// reads on the wire in each binding — JSON-RPC SSE, REST SSE, gRPC — step by
// step. The shapes are the ones src/http/sse-answer.ts, the JSON-RPC and REST
// inbound bindings (a final `event: error` frame) and the gRPC inbound binding
// (the status with grpc-status-details-bin) write. Written by `npm run docs`.

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Step {
  /** What happens, on the sequence side. */
  label: string;
  /** The arrow: from → to on the lifelines (0 caller, 1 gateway, 2 agent). */
  arrows: Array<[number, number, string]>;
  /** What the caller reads, per binding (JSON-RPC, REST, gRPC). */
  wire: [string[], string[], string[]];
  error?: boolean;
}

const STEPS: Step[] = [
  {
    label: 'the call',
    arrows: [
      [0, 1, 'streaming request'],
      [1, 2, "in the agent's binding"],
    ],
    wire: [
      ['POST /', '{"jsonrpc":"2.0","id":7,', ' "method":"SendStreamingMessage",…}'],
      ['POST /message:stream', 'A2A-Version: 1.0', '{"message":{…}}'],
      ['SendStreamingMessage', '(server streaming)', 'metadata a2a-version: 1.0'],
    ],
  },
  {
    label: 'first event',
    arrows: [
      [2, 1, 'Task'],
      [1, 0, 'answer opens'],
    ],
    wire: [
      ['200 text/event-stream', 'data: {"jsonrpc":"2.0","id":7,', '  "result":{"task":{…}}}'],
      ['200 text/event-stream', 'data: {"task":{…}}'],
      ['response headers', 'StreamResponse { task }'],
    ],
  },
  {
    label: 'more events',
    arrows: [
      [2, 1, 'status update'],
      [1, 0, 'relayed as it comes'],
    ],
    wire: [
      ['data: {"jsonrpc":"2.0","id":7,', '  "result":{"statusUpdate":{…}}}'],
      ['data: {"statusUpdate":{…}}'],
      ['StreamResponse { status_update }'],
    ],
  },
  {
    label: 'the agent fails',
    error: true,
    arrows: [
      [2, 1, '✕ dropped / error / idle'],
      [1, 0, 'a final error'],
    ],
    wire: [
      [
        'event: error',
        'data: {"jsonrpc":"2.0","id":7,',
        '  "error":{"code":-32051,',
        '  "message":"…","data":[',
        '  {"@type":"…google.rpc.ErrorInfo",',
        '   "reason":"UPSTREAM_UNAVAILABLE",',
        '   "domain":"a2a-gateway"}]}}',
      ],
      [
        'event: error',
        'data: {"error":{"code":503,',
        '  "status":"UNAVAILABLE",',
        '  "message":"…","details":[',
        '  {"@type":"…google.rpc.ErrorInfo",',
        '   "reason":"UPSTREAM_UNAVAILABLE",',
        '   "domain":"a2a-gateway"}]}}',
      ],
      [
        'trailers:',
        'grpc-status: 14 (UNAVAILABLE)',
        'grpc-message: …',
        'grpc-status-details-bin:',
        '  google.rpc.Status with the',
        '  ErrorInfo UPSTREAM_UNAVAILABLE',
      ],
    ],
  },
  {
    label: 'the end',
    arrows: [[1, 0, 'answer ends']],
    wire: [['the response ends'], ['the response ends'], ['the call ends with that status']],
  },
];

const BINDINGS = ['JSON-RPC (SSE)', 'REST (SSE)', 'gRPC'];
const LINE = 14;
const MONO = 'font-family="Menlo, Consolas, monospace" font-size="10.5" xml:space="preserve"';

export function streamingSvg(): string {
  const lanes = [125, 250, 375];
  const colX = [468, 710, 952];
  const bg: string[] = [];
  const out: string[] = [];
  let y = 110;
  for (const step of STEPS) {
    const rows = Math.max(...step.wire.map((w) => w.length), step.arrows.length * 2);
    const h = rows * LINE + 22;
    bg.push(`<rect x="10" y="${y - 6}" width="1180" height="${h}" fill="${step.error ? '#fdecea' : '#f7f9fc'}"/>`);
    out.push(`<text x="16" y="${y + 8}" font-size="11" font-weight="bold" fill="#555">${esc(step.label)}</text>`);
    step.arrows.forEach(([from, to, text], i) => {
      const ay = y + 20 + i * 2 * LINE;
      const x1 = lanes[from]!;
      const x2 = lanes[to]!;
      const stroke = step.error && from === 2 ? '#c0392b' : '#345';
      out.push(
        `<line x1="${x1}" y1="${ay}" x2="${x2 + (x2 > x1 ? -4 : 4)}" y2="${ay}" stroke="${stroke}" stroke-width="1.4" marker-end="url(#head)"${step.error && from === 2 ? ' stroke-dasharray="4 3"' : ''}/>`,
        `<text x="${(x1 + x2) / 2}" y="${ay - 4}" text-anchor="middle" font-size="10.5" fill="${stroke}">${esc(text)}</text>`,
      );
    });
    step.wire.forEach((lines, b) => {
      lines.forEach((l, i) => {
        const color = step.error ? '#a01010' : '#222';
        out.push(`<text x="${colX[b]}" y="${y + 8 + i * LINE}" ${MONO} fill="${color}">${esc(l)}</text>`);
      });
    });
    y += h + 8;
  }
  const bottom = y;
  const lifelines = ['caller', 'gateway', 'agent']
    .map(
      (name, i) =>
        `<rect x="${lanes[i]! - 45}" y="62" width="90" height="26" rx="5" fill="#eef4fb" stroke="#456"/>` +
        `<text x="${lanes[i]}" y="80" text-anchor="middle" font-size="12" font-weight="bold">${name}</text>` +
        `<line x1="${lanes[i]}" y1="88" x2="${lanes[i]}" y2="${bottom}" stroke="#9ab" stroke-dasharray="3 3"/>`,
    )
    .join('\n');
  const heads = BINDINGS.map(
    (b, i) =>
      `<text x="${colX[i]}" y="80" font-size="12" font-weight="bold">${b}</text>` +
      `<line x1="${colX[i]! - 10}" y1="62" x2="${colX[i]! - 10}" y2="${bottom}" stroke="#ccd"/>`,
  ).join('\n');
  const height = bottom + 62;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="${height}" viewBox="0 0 1200 ${height}" font-family="Helvetica, Arial, sans-serif">
<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#345"/></marker></defs>
<rect width="1200" height="${height}" fill="#fff"/>
<text x="10" y="26" font-size="17" font-weight="bold">A stream that fails after two events: what the caller reads in each binding</text>
<text x="10" y="46" font-size="11.5" fill="#333">The same shape for every agent binding and every failure: an error event or non-OK status from the agent, a dropped connection, no event for streamIdleTimeoutMs, an event over maxSseEventBytes.</text>
${bg.join('\n')}
${lifelines}
${heads}
${out.join('\n')}
<text x="10" y="${bottom + 22}" font-size="11.5" fill="#333">Never a silent clean end. An error before the first event is an ordinary error answer instead: JSON-RPC a plain application/json error response (a 0.3 caller:</text>
<text x="10" y="${bottom + 40}" font-size="11.5" fill="#333">a stream of that one event: error), REST the HTTP status with {"error": …}, gRPC the call's status. The reason shown is the one for a dropped connection.</text>
</svg>
`;
}
