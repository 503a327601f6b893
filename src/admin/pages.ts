// The console's server-rendered pages (issue 16): Routes (match, upstream,
// endpoints with health, bindings, auth, limits, the served card rendered
// with its raw JSON a click away), Traffic (charts drawn by the script from
// /admin/api/traffic; the last errors), Try it (the form; the script posts
// it to /admin/api/try and shows the events) and Config (masked, with hash
// and last reload). Everything is escaped by `html` (html.ts): card fields
// come from upstreams and are hostile until proven otherwise.
import type { JsonObject } from '../proto/json.js';
import { html, layout, Safe } from './html.js';
import type { RecentError } from './recent-errors.js';
import type { RouteView } from './route-view.js';
import type { ConfigStatus } from '../ops/config-state.js';

const obj = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

export function routeAnchor(name: string): string {
  return `route-${name}`;
}

function endpointsCell(r: RouteView): Safe {
  return html`${r.endpoints.map(
    (e) =>
      html`<div class="endpoint">
        <span class="health health-${e.health}" data-health="${e.health}">${e.health}</span>
        ${e.name ? html`<b>${e.name}</b> ` : ''}<code>${e.url}</code>
        <small class="reason">${e.reason}</small>
      </div>`,
  )}`;
}

function matchCell(r: RouteView): Safe {
  return html`<div>host <code>${r.match.hosts.length ? r.match.hosts.join(', ') : '*'}</code></div>
    <div>prefix <code>${r.match.pathPrefix}</code></div>
    <div>tenant <code>${r.match.tenant ?? '*'}</code></div>`;
}

function renderCard(card: JsonObject): Safe {
  const caps = obj(card.capabilities);
  const provider = obj(card.provider);
  return html`<div class="agent-card">
    <h3 class="card-name">${str(card.name)} <small>${str(card.version)}</small></h3>
    <p class="card-description">${str(card.description)}</p>
    ${provider.organization ? html`<p>Provider: ${str(provider.organization)} <code>${str(provider.url)}</code></p>` : ''}
    <p>
      Capabilities:
      ${['streaming', 'pushNotifications', 'extendedAgentCard'].map((k) => html`<span class="tag ${caps[k] ? 'on' : 'off'}">${k}</span> `)}
    </p>
    <h4>Interfaces</h4>
    <ul>
      ${arr(card.supportedInterfaces).map((i) => html`<li><b>${str(obj(i).protocolBinding)}</b> ${str(obj(i).protocolVersion)} <code>${str(obj(i).url)}</code>${obj(i).tenant ? html` tenant <code>${str(obj(i).tenant)}</code>` : ''}</li>`)}
    </ul>
    <h4>Skills</h4>
    <ul class="skills">
      ${arr(card.skills).map((s) => html`<li><b>${str(obj(s).name)}</b> — ${str(obj(s).description)} ${arr(obj(s).tags).map((t) => html`<span class="tag">${str(t)}</span> `)}</li>`)}
    </ul>
  </div>`;
}

function routeDetail(r: RouteView): Safe {
  const limits = Object.entries(r.limits);
  return html`<section class="route-detail" id="${routeAnchor(r.name)}">
    <h2>${r.name}</h2>
    <div class="columns">
      <div>
        <h3>Upstream</h3>
        <dl>
          <dt>binding</dt>
          <dd>${r.upstream.binding} (A2A ${r.upstream.version})</dd>
          <dt>endpoints</dt>
          <dd class="endpoints" data-route="${r.name}">${endpointsCell(r)}</dd>
          <dt>credentials</dt>
          <dd>${r.upstream.credentials}</dd>
          <dt>tenant sent</dt>
          <dd>${r.upstream.tenant}</dd>
          <dt>pass-through</dt>
          <dd>${r.upstream.passThrough ? 'yes (same binding)' : 'no'}</dd>
          <dt>caller bindings</dt>
          <dd>${r.bindings.join(', ')}</dd>
          <dt>caller versions</dt>
          <dd>${r.versions.join(', ')}</dd>
          <dt>auth</dt>
          <dd>
            ${r.auth.modes.join(', ')}${r.auth.apiKey ? html` — key in ${r.auth.apiKey.location} <code>${r.auth.apiKey.name}</code>, ids ${r.auth.apiKey.keyIds.join(', ')}` : ''}${r.auth.jwt ? html` — issuer <code>${str(r.auth.jwt.issuer) || '*'}</code>, audience <code>${str(r.auth.jwt.audience) || '*'}</code>` : ''}
          </dd>
        </dl>
        <h3>Limits</h3>
        <table class="limits">
          ${limits.map(
            ([k, v]) =>
              html`<tr>
                <th>${k}</th>
                <td>${v ?? '—'}</td>
              </tr>`,
          )}
        </table>
      </div>
      <div>
        <h3>Served card</h3>
        ${r.card.served ? renderCard(obj(r.card.served)) : html`<p class="warn">${r.card.error ?? r.card.reason ?? 'no card'}</p>`}
        ${
          r.card.served
            ? html`<details class="raw">
                <summary>Raw JSON</summary>
                <pre>${JSON.stringify(r.card.served, null, 2)}</pre>
              </details>`
            : ''
        }
      </div>
    </div>
  </section>`;
}

export function routesPage(routes: RouteView[]): string {
  return layout(
    '/admin/routes',
    html`<p class="summary">
        ${routes.length} route${routes.length === 1 ? '' : 's'}. Health refreshes every few seconds.
      </p>
      <table class="routes" id="routes-table">
        <thead>
          <tr>
            <th>Route</th>
            <th>Match</th>
            <th>Upstream</th>
            <th>Endpoints</th>
            <th>Caller bindings</th>
            <th>Auth</th>
          </tr>
        </thead>
        <tbody>
          ${routes.map(
            (r) =>
              html`<tr data-route="${r.name}">
                <td><a href="#${routeAnchor(r.name)}">${r.name}</a></td>
                <td>${matchCell(r)}</td>
                <td>${r.upstream.binding} <small>A2A ${r.upstream.version}</small></td>
                <td class="endpoints" data-route="${r.name}">${endpointsCell(r)}</td>
                <td>${r.bindings.join(', ')}</td>
                <td>${r.auth.modes.join(', ')}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${routes.map(routeDetail)}`,
  );
}

export function errorsTable(errors: RecentError[]): Safe {
  return html`<table class="errors" id="errors-table">
    <thead>
      <tr>
        <th>When</th>
        <th>Request id</th>
        <th>Route</th>
        <th>Method</th>
        <th>Bindings</th>
        <th>Outcome</th>
        <th>Message</th>
      </tr>
    </thead>
    <tbody>
      ${errors.map(
        (e) =>
          html`<tr>
            <td>${e.at}</td>
            <td><code>${e.requestId}</code></td>
            <td>${e.route ?? '—'}</td>
            <td>${e.method ?? '—'}</td>
            <td>${e.inbound} → ${e.upstream ?? '—'}</td>
            <td>${e.outcome}</td>
            <td>${e.error ?? ''}${e.detail ? html`<br /><small>${e.detail}</small>` : ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function trafficPage(errors: RecentError[], intervalSeconds: number): string {
  return layout(
    '/admin/traffic',
    html`<p class="summary" id="traffic-interval" data-seconds="${intervalSeconds}">
        Rates, errors and latency from the gateway's own metrics, sampled every ${intervalSeconds} s (the last
        ${60 * intervalSeconds} s shown).
      </p>
      <h2>Per route</h2>
      <div class="charts" id="traffic-routes"><p class="muted">Loading…</p></div>
      <h2>Per binding pair (inbound → upstream)</h2>
      <div class="charts" id="traffic-pairs"><p class="muted">Loading…</p></div>
      <h2>Last errors</h2>
      <div id="errors">${errorsTable(errors)}</div>`,
  );
}

export function tryPage(routes: RouteView[]): string {
  const first = routes[0];
  return layout(
    '/admin/try',
    html`<form id="try-form" class="try">
        <label
          >Route
          <select name="route" id="try-route">
            ${routes.map((r) => html`<option value="${r.name}" data-bindings="${r.bindings.join(' ')}">${r.name}</option>`)}
          </select></label
        >
        <label
          >Binding
          <select name="binding" id="try-binding">
            ${(first?.bindings ?? []).map((b) => html`<option value="${b}">${b}</option>`)}
          </select></label
        >
        <label class="check"
          ><input type="checkbox" name="stream" id="try-stream" /> stream (SendStreamingMessage)</label
        >
        <label class="wide"
          >Message text <input type="text" name="text" id="try-text" value="hello" maxlength="4096"
        /></label>
        <label class="wide"
          >Extra headers (one "Name: value" a line; shown masked)
          <textarea name="headers" id="try-headers" rows="2" spellcheck="false"></textarea>
        </label>
        <button type="submit" id="try-send">Send</button>
      </form>
      <p class="muted">
        The message goes through the gateway's public listener, as any caller's would. "message" gets a Message back
        from the demo agent, "stream" a streamed task.
      </p>
      <div class="try-output">
        <div>
          <h2>Request</h2>
          <div id="try-request" class="shown"><p class="muted">Nothing sent yet.</p></div>
        </div>
        <div>
          <h2>Answer <span id="try-status" class="status"></span></h2>
          <ol id="try-events" class="events"></ol>
        </div>
      </div>`,
  );
}

export function configPage(state: ConfigStatus, source: string, masked: unknown): string {
  const last = state.lastReload;
  return layout(
    '/admin/config',
    html`<dl class="config-meta">
        <dt>source</dt>
        <dd><code>${source}</code></dd>
        <dt>hash</dt>
        <dd><code id="config-hash">${state.hash ?? '— (not loaded from a file)'}</code></dd>
        <dt>loaded</dt>
        <dd>${state.loadedAt}</dd>
        <dt>last reload</dt>
        <dd id="last-reload">
          ${
            last
              ? html`<span class="health ${last.outcome === 'success' ? 'health-healthy' : 'health-unhealthy'}"
                    >${last.outcome}</span
                  >
                  ${last.at}
                  (${last.trigger}${last.hash ? html`, hash <code>${last.hash}</code>` : ''})${
                    last.problems
                      ? html`<ul>
                          ${last.problems.map((p) => html`<li>${p}</li>`)}
                        </ul>`
                      : ''
                  }`
              : 'none since start'
          }
        </dd>
      </dl>
      <p class="muted">Secrets are masked. The same as JSON: <a href="/admin/api/config">/admin/api/config</a>.</p>
      <pre id="config-json">${JSON.stringify(masked, null, 2)}</pre>`,
  );
}
