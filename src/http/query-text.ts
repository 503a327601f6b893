// A query string as RFC 3986 writes it (spec §11.5: "properly URL-encoded per
// RFC 3986"): every name and value percent-encoded, a space as %20 and "+" as
// %2B — unlike URLSearchParams' HTML-form encoding, whose "+" for a space an
// RFC 3986 reader takes as a "+". Agents of either kind read the same value.

/** `name=value` pairs joined with "&", each percent-encoded; "" for none. */
export function queryText(pairs: Iterable<readonly [string, string]>): string {
  const parts: string[] = [];
  for (const [k, v] of pairs) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return parts.join('&');
}
