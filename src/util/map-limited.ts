// Bounded fan-out: a function over a list with at most `limit` calls in
// flight (a JSON-RPC batch's requests go upstream this way, issue 12 item 2).

/** `fn` over `items`, at most `limit` at once; the results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
