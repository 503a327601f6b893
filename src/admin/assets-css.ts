// The console's stylesheet, embedded (see assets.ts for why) and served from
// the admin listener itself: the CSP allows styles from 'self' only.

export const CONSOLE_CSS = String.raw`
:root { --fg: #1d2433; --muted: #667085; --line: #d9dee7; --bg: #f6f7f9; --card: #fff; --accent: #2f5fd0;
  --ok: #12805c; --bad: #c4320a; --unknown: #8a8f98; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #1d2433; color: #fff; }
header .brand { font-weight: 700; letter-spacing: .02em; }
header nav a { color: #c8d3ea; text-decoration: none; margin-right: 16px; padding: 4px 0; }
header nav a[aria-current='page'] { color: #fff; border-bottom: 2px solid #7aa2ff; }
main { padding: 16px 24px 48px; max-width: 1400px; }
h1 { font-size: 22px; margin: 8px 0 12px; }
h2 { font-size: 17px; margin: 24px 0 8px; }
h3 { font-size: 15px; margin: 12px 0 6px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #0f1522; color: #e6edf7; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 480px;
  white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; background: var(--card); width: 100%; }
th, td { border: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
thead th { background: #eef1f6; font-weight: 600; }
.muted, small { color: var(--muted); }
.summary { color: var(--muted); }
.health { display: inline-block; min-width: 72px; text-align: center; padding: 1px 8px; border-radius: 10px; color: #fff;
  font-size: 12px; font-weight: 600; }
.health-healthy { background: var(--ok); }
.health-unhealthy { background: var(--bad); }
.health-unknown { background: var(--unknown); }
.tag { display: inline-block; padding: 0 6px; border-radius: 4px; background: #e8edf8; font-size: 12px; }
.tag.off { background: #f1f1f1; color: var(--muted); text-decoration: line-through; }
.route-detail { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin-top: 16px; }
.columns { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(320px, 1fr); gap: 24px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
table.limits { width: auto; }
.warn { color: var(--bad); }
details.raw summary { cursor: pointer; color: var(--accent); margin: 8px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 12px; }
.chart-card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.chart-card h3 { margin: 4px 0; }
.chart-card .totals { margin: 0 0 6px; color: var(--muted); font-size: 12px; }
.chart-row { display: grid; grid-template-columns: 62px 220px 1fr; align-items: center; gap: 6px; }
.chart-label, .chart-value { font-size: 12px; color: var(--muted); }
svg.spark .axis { stroke: var(--line); stroke-width: 1; }
svg.spark .line { fill: none; stroke-width: 1.6; }
svg.spark.calls .line { stroke: var(--accent); }
svg.spark.errors .line { stroke: var(--bad); }
svg.spark.latency .line { stroke: #8a5cd1; }
form.try { display: grid; grid-template-columns: repeat(3, max-content); gap: 10px 18px; align-items: end; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
form.try label { display: flex; flex-direction: column; gap: 4px; font-size: 12px; color: var(--muted); }
form.try label.check { flex-direction: row; align-items: center; }
form.try label.wide { grid-column: 1 / -1; }
form.try input[type='text'], form.try textarea, form.try select { font: inherit; padding: 5px 8px; border: 1px solid var(--line);
  border-radius: 5px; color: var(--fg); min-width: 200px; }
form.try button { font: inherit; font-weight: 600; padding: 6px 20px; border: 0; border-radius: 5px; background: var(--accent); color: #fff; cursor: pointer; }
form.try button:disabled { opacity: .6; }
.status { font-size: 13px; font-weight: 400; color: var(--muted); margin-left: 8px; }
ol.events { padding-left: 24px; }
ol.events li { margin-bottom: 8px; }
ol.events li .summary { font-weight: 600; margin-bottom: 2px; }
ol.events li pre { max-height: 150px; margin: 0; }
.try-output { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
ol.events li.error strong { color: var(--bad); }
#config-json { max-height: none; }
.config-meta { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-bottom: 12px; }
`;
