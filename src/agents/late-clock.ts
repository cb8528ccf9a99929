/** A promise that resolves to 'late' once `ms` have passed: how long a poll holding jobs waits on. */
export function lateAfter(ms: number) {
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      fired = true;
      resolve('late');
    }, ms);
  });
  return {
    promise,
    get fired() {
      return fired;
    },
    clear() {
      clearTimeout(timer);
    },
  };
}

export type Late = ReturnType<typeof lateAfter>;
