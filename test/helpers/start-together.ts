/**
 * Promise.all for things a test must close. With Promise.all, when one start fails the others
 * that did start are lost: nothing holds them, the after hook cannot close them, and a Hub's
 * child process or a browser keeps the test file alive until CI's own limit (a dashboard file
 * whose Chromium was missing hung the suite that way). Here they are closed before the failure
 * is thrown.
 */
type Closable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

export async function startTogether<T extends readonly Closable[]>(starts: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(starts as readonly Promise<Closable>[]);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed === undefined) return settled.map((r) => (r as PromiseFulfilledResult<Closable>).value) as unknown as T;
  await Promise.allSettled(settled.flatMap((r) => (r.status === 'fulfilled' ? [closeOf(r.value)] : [])));
  throw failed.reason;
}

function closeOf(started: Closable): Promise<unknown> {
  return 'close' in started ? started.close() : started.stop();
}
