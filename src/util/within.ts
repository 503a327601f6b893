// A pull raced against a period: its result when it settles within the
// period, else the pull itself, still pending (the caller goes on without
// it and reads it later). Used where a stream may be quiet at first (a 0.3
// agent's resubscribe): a failure to start comes within the period and is
// handled as one; after it, the answer opens and the pull goes on.

/** The pull's result if it comes within `ms`, else the pull itself, still pending; a failure within `ms` rejects. */
export function within<T>(pull: Promise<T>, ms: number): Promise<{ value: T } | { pending: Promise<T> }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ pending: pull }), ms);
    pull.then(
      (value) => {
        clearTimeout(timer);
        resolve({ value });
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e); // after the timer: nobody waits here; whoever reads the pending pull gets the failure
      },
    );
  });
}
