/** TILLER_FUZZ_TRACE=1: how long each step of each case took, on stderr (to see where a run spends its time). */
const on = process.env.TILLER_FUZZ_TRACE === '1';

export function tracer(label: string): (step: string) => void {
  if (!on) return () => undefined;
  const start = Date.now();
  let last = start;
  return (step) => {
    const now = Date.now();
    process.stderr.write(`[fuzz ${((now - start) / 1000).toFixed(1)}s +${now - last}ms] ${label}: ${step}\n`);
    last = now;
  };
}
