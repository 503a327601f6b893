// The console's one script and one stylesheet, embedded so that the built
// package and the Docker image (which ship dist/**/*.js only) serve them with
// no copy step, and served from the admin listener itself (no CDN: the
// console works offline; the CSP allows scripts and styles from 'self' only).
// The script is plain ES2020 for the browser, written without template
// literals (this file's own), and builds every node with textContent: no
// string from the API ever becomes markup.

export const CONSOLE_JS = String.raw`(function () {
  'use strict';
  var page = document.body.getAttribute('data-page');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function getJson(url) {
    return fetch(url, { headers: { accept: 'application/json' } }).then(function (r) {
      return r.json();
    });
  }
  function every(ms, fn) {
    fn();
    setInterval(fn, ms);
  }

  // --- Routes: endpoint health, refreshed ---
  function renderEndpoints(cell, endpoints) {
    clear(cell);
    endpoints.forEach(function (e) {
      var div = el('div', 'endpoint');
      var badge = el('span', 'health health-' + e.health, e.health);
      badge.setAttribute('data-health', e.health);
      div.appendChild(badge);
      div.appendChild(document.createTextNode(' '));
      if (e.name) {
        div.appendChild(el('b', '', e.name));
        div.appendChild(document.createTextNode(' '));
      }
      div.appendChild(el('code', '', e.url));
      div.appendChild(document.createTextNode(' '));
      div.appendChild(el('small', 'reason', e.reason));
      cell.appendChild(div);
    });
  }
  function refreshRoutes() {
    getJson('/admin/api/routes').then(function (body) {
      var byName = {};
      body.routes.forEach(function (r) {
        byName[r.name] = r;
      });
      document.querySelectorAll('.endpoints[data-route]').forEach(function (cell) {
        var r = byName[cell.getAttribute('data-route')];
        if (r) renderEndpoints(cell, r.endpoints);
      });
    });
  }

  // --- Traffic: sparklines and the last errors ---
  var SVG = 'http://www.w3.org/2000/svg';
  function fmt(v, unit) {
    if (v === null || v === undefined) return '—';
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + unit;
  }
  function sparkline(points, field, kind) {
    var w = 220, h = 48, pad = 3;
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.setAttribute('width', String(w));
    svg.setAttribute('height', String(h));
    svg.setAttribute('class', 'spark ' + kind);
    var base = document.createElementNS(SVG, 'line');
    base.setAttribute('x1', '0');
    base.setAttribute('x2', String(w));
    base.setAttribute('y1', String(h - pad));
    base.setAttribute('y2', String(h - pad));
    base.setAttribute('class', 'axis');
    svg.appendChild(base);
    var values = points.map(function (p) {
      return p[field];
    });
    var max = Math.max.apply(null, values.filter(function (v) { return v !== null; }).concat([0]));
    if (max <= 0) max = 1;
    var n = Math.max(values.length - 1, 1);
    var coords = [];
    values.forEach(function (v, i) {
      if (v === null) return;
      var x = (i / n) * (w - 2 * pad) + pad;
      var y = h - pad - (v / max) * (h - 2 * pad);
      coords.push(x.toFixed(1) + ',' + y.toFixed(1));
    });
    if (coords.length === 1) coords.push(coords[0].replace(/^[^,]+/, String(w - pad)));
    var line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', coords.join(' '));
    line.setAttribute('class', 'line');
    svg.appendChild(line);
    return svg;
  }
  function chartCard(series, label) {
    var card = el('div', 'chart-card');
    card.setAttribute('data-key', series.key);
    card.appendChild(el('h3', '', label));
    var t = series.totals;
    card.appendChild(
      el('p', 'totals', t.calls + ' calls, ' + t.errors + ' errors, mean ' + fmt(t.meanLatencyMs, 'ms') + ' since start'),
    );
    var last = series.points.length ? series.points[series.points.length - 1] : null;
    [
      ['rate', 'calls/s', 'calls'],
      ['errorRate', 'errors/s', 'errors'],
      ['latencyMs', 'ms mean', 'latency'],
    ].forEach(function (c) {
      var row = el('div', 'chart-row');
      row.appendChild(el('span', 'chart-label', c[1]));
      row.appendChild(sparkline(series.points, c[0], c[2]));
      row.appendChild(el('span', 'chart-value', last ? fmt(last[c[0]], '') : '—'));
      card.appendChild(row);
    });
    return card;
  }
  function renderCharts(container, list, label) {
    clear(container);
    if (list.length === 0) container.appendChild(el('p', 'muted', 'No calls yet.'));
    list.forEach(function (s) {
      container.appendChild(chartCard(s, label(s.key)));
    });
  }
  function renderErrors(errors) {
    var body = document.querySelector('#errors-table tbody');
    if (!body) return;
    clear(body);
    errors.forEach(function (e) {
      var tr = el('tr');
      tr.appendChild(el('td', '', e.at));
      var id = el('td');
      id.appendChild(el('code', '', e.requestId));
      tr.appendChild(id);
      tr.appendChild(el('td', '', e.route || '—'));
      tr.appendChild(el('td', '', e.method || '—'));
      tr.appendChild(el('td', '', e.inbound + ' → ' + (e.upstream || '—')));
      tr.appendChild(el('td', '', e.outcome));
      var msg = el('td', '', e.error || '');
      if (e.detail) {
        msg.appendChild(el('br'));
        msg.appendChild(el('small', '', e.detail));
      }
      tr.appendChild(msg);
      body.appendChild(tr);
    });
  }
  function refreshTraffic() {
    getJson('/admin/api/traffic').then(function (v) {
      renderCharts(document.getElementById('traffic-routes'), v.routes, function (k) {
        return k === '-' ? '(no route matched)' : k;
      });
      renderCharts(document.getElementById('traffic-pairs'), v.pairs, function (k) {
        return k.replace(/ → -$/, ' → (none)');
      });
    });
    getJson('/admin/api/errors').then(function (v) {
      renderErrors(v.errors);
    });
  }

  // --- Try it: post the form, read the events as they come ---
  function bindingOptions() {
    var route = document.getElementById('try-route');
    var binding = document.getElementById('try-binding');
    var opt = route.options[route.selectedIndex];
    var keep = binding.value;
    clear(binding);
    (opt ? opt.getAttribute('data-bindings') || '' : '').split(' ').filter(Boolean).forEach(function (b) {
      var o = el('option', '', b);
      o.value = b;
      if (b === keep) o.selected = true;
      binding.appendChild(o);
    });
  }
  function parseHeaders(text) {
    var out = {};
    text.split('\n').forEach(function (line) {
      var i = line.indexOf(':');
      if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    });
    return out;
  }
  function pretty(v) {
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  }
  function texts(parts) {
    return (parts || [])
      .map(function (p) {
        return p.text || '';
      })
      .join('');
  }
  /** One line per answer: what kind of object, its state or its text. */
  function summary(d) {
    if (!d || typeof d !== 'object') return String(d);
    if (d.task) return 'task ' + (d.task.status ? d.task.status.state : '');
    if (d.statusUpdate) return 'statusUpdate ' + (d.statusUpdate.status ? d.statusUpdate.status.state : '');
    if (d.artifactUpdate) return 'artifactUpdate "' + texts(d.artifactUpdate.artifact && d.artifactUpdate.artifact.parts) + '"';
    if (d.message) return 'message "' + texts(d.message.parts) + '"';
    return Object.keys(d)[0] || 'answer';
  }
  function onTryEvent(type, e) {
    var status = document.getElementById('try-status');
    var events = document.getElementById('try-events');
    if (type === 'request') {
      var shown = document.getElementById('try-request');
      clear(shown);
      e.shown.forEach(function (s) {
        shown.appendChild(el('h3', '', s.label));
        shown.appendChild(el('pre', 'request', s.text));
      });
    } else if (type === 'status') {
      status.textContent = e.status;
    } else if (type === 'event') {
      var li = el('li', 'event');
      li.appendChild(el('div', 'summary', summary(e.data)));
      li.appendChild(el('pre', '', pretty(e.data)));
      events.appendChild(li);
    } else if (type === 'error') {
      var err = el('li', 'error');
      err.appendChild(el('strong', '', e.message));
      if (e.data !== undefined) err.appendChild(el('pre', '', pretty(e.data)));
      events.appendChild(err);
    } else if (type === 'done') {
      status.textContent = (status.textContent ? status.textContent + ' · ' : '') + 'done';
      status.setAttribute('data-done', 'true');
    }
  }
  function readEvents(res) {
    var reader = res.body.getReader();
    var decoder = new TextDecoder();
    var buf = '';
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) return;
        buf += decoder.decode(r.value, { stream: true });
        var frames = buf.split('\n\n');
        buf = frames.pop();
        frames.forEach(function (frame) {
          var type = 'message', data = '';
          frame.split('\n').forEach(function (line) {
            if (line.indexOf('event: ') === 0) type = line.slice(7);
            else if (line.indexOf('data: ') === 0) data += line.slice(6);
          });
          if (data) onTryEvent(type, JSON.parse(data));
        });
        return pump();
      });
    }
    return pump();
  }
  function send(ev) {
    ev.preventDefault();
    var button = document.getElementById('try-send');
    var status = document.getElementById('try-status');
    clear(document.getElementById('try-events'));
    // the last send's request goes too: a send refused before it has one must not show that one
    clear(document.getElementById('try-request'));
    status.textContent = 'sending…';
    status.removeAttribute('data-done');
    button.disabled = true;
    var body = {
      route: document.getElementById('try-route').value,
      binding: document.getElementById('try-binding').value,
      stream: document.getElementById('try-stream').checked,
      text: document.getElementById('try-text').value,
      headers: parseHeaders(document.getElementById('try-headers').value),
    };
    fetch('/admin/api/try', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    })
      .then(function (res) {
        if (res.ok) return readEvents(res);
        return res.json().then(function (b) {
          onTryEvent('error', { message: 'HTTP ' + res.status + ': ' + b.error });
          onTryEvent('done', {});
        });
      })
      .catch(function (e) {
        onTryEvent('error', { message: String(e) });
      })
      .then(function () {
        button.disabled = false;
      });
  }

  if (page === '/admin/routes') every(3000, refreshRoutes);
  if (page === '/admin/traffic') {
    var interval = Number(document.getElementById('traffic-interval').getAttribute('data-seconds') || '5');
    every(Math.max(interval, 1) * 1000, refreshTraffic);
  }
  if (page === '/admin/try') {
    document.getElementById('try-route').addEventListener('change', bindingOptions);
    document.getElementById('try-form').addEventListener('submit', send);
  }
})();
`;

export { CONSOLE_CSS } from './assets-css.js';
