/**
 * `fn` over `items` with at most `limit` calls in flight, results in input order. On the first
 * failure no further call is started; the ones in flight are waited for (so nothing they do is
 * still running when the caller reacts, e.g. rolls back), then the failure of the lowest index
 * is thrown — the same one whatever order the calls finished in.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  const errors = new Map<number, unknown>();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (errors.size === 0 && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (err) {
        errors.set(i, err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (errors.size > 0) throw errors.get(Math.min(...errors.keys()));
  return results;
}
