// `make bench-cli`: sbx's start-up. Runs the built binary's `sbx --version` and, as the
// baseline, the same Node binary with nothing to do (`node -e 0`), alternating so load
// changes hit both; prints the medians and the ratio, then one JSON line.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 41);

function timed(file: string, args: string[]): number {
  const t = performance.now();
  const r = spawnSync(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}`);
  return ms;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (n: number) => Math.round(n * 10) / 10;

const sbx = resolve(root, 'dist/sbx');
const sbxTimes: number[] = [];
const nodeTimes: number[] = [];
// Warm-up: the first runs pay for the page cache.
timed(sbx, ['--version']);
timed(process.execPath, ['-e', '0']);
for (let i = 0; i < RUNS; i++) {
  sbxTimes.push(timed(sbx, ['--version']));
  nodeTimes.push(timed(process.execPath, ['-e', '0']));
}
const p50 = pct(sbxTimes, 50);
const base = pct(nodeTimes, 50);
console.log(`sbx --version   p50 ${round(p50)} ms  p95 ${round(pct(sbxTimes, 95))} ms  (${RUNS} runs)`);
console.log(`node -e 0       p50 ${round(base)} ms  p95 ${round(pct(nodeTimes, 95))} ms`);
console.log(`ratio ${round(p50 / base)}`);
console.log(
  JSON.stringify({
    bench: 'cli',
    startup_p50_ms: round(p50),
    startup_p95_ms: round(pct(sbxTimes, 95)),
    node_p50_ms: round(base),
    ratio: round(p50 / base),
    runs: RUNS,
  }),
);
