/** Runs `fn` on every item, at most `n` at once, and resolves once all are done; `fn` handles its own errors. */
export async function eachConcurrently<T>(
  items: readonly T[],
  n: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
