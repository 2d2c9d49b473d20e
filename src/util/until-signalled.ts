/** Resolves at the first SIGINT or SIGTERM, removing both listeners: how foreground commands wait to stop. */
export function untilSignalled(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
