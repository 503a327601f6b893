// Safe HTML for the admin console: a tagged template that escapes every
// interpolated value (card fields come from upstreams and are treated as
// hostile) unless it is already Safe markup built the same way, the page
// layout with its navigation, and the strict Content-Security-Policy the
// console's pages and API answers carry (scripts and styles from the console's
// own origin only: no inline script, no CDN).

/** Markup that is already escaped. */
export class Safe {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function piece(value: unknown): string {
  if (value instanceof Safe) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${x}</td>\``: every value escaped, Safe values and arrays of them kept. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0]!;
  values.forEach((v, i) => (out += piece(v) + strings[i + 1]!));
  return new Safe(out);
}

/** No inline script or style, nothing from elsewhere; the page may call only its own origin. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGES = [
  { path: '/admin/routes', title: 'Routes' },
  { path: '/admin/traffic', title: 'Traffic' },
  { path: '/admin/try', title: 'Try it' },
  { path: '/admin/config', title: 'Config' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

export function layout(active: PagePath, body: Safe): string {
  const title = PAGES.find((p) => p.path === active)!.title;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · a2a-gateway console</title>
        <link rel="stylesheet" href="/admin/assets/console.css" />
        <script src="/admin/assets/console.js" defer></script>
      </head>
      <body data-page="${active}">
        <header>
          <span class="brand">a2a-gateway</span>
          <nav>
            ${PAGES.map((p) => html`<a href="${p.path}" ${p.path === active ? new Safe(' aria-current="page"') : ''}>${p.title}</a>`)}
          </nav>
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `.text;
}
