/** Polls `check` every 25 ms until it holds; fails with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what = 'the condition', timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
