// bench-peer's last JSON line (the real cluster's). Two definitions of "ready", both printed,
// named apart (bench/README.md, "bench-peer on the real cluster: two clocks"):
//
// - the keys (`svc_cold_p50_ms`, `cold_ratio`, `svc_burst50_s`, …) are each side's
//   OWN Running, what its users wait for: ours `status.phase` Running, the peer's `Ready`
//   condition (a claim's, warm);
// - the `*_first_answer_*` keys time a point both sides share: sandboxd's first `/healthz`
//   answer from the Pod's node, so neither side's way of noticing is in the ratio.
//
// Warm has only the first kind: a pool's member answers before it is claimed.
import { median, percentile, round } from './support.ts';

/** One cold create, in ms from the create's call. */
export interface ColdTimes {
  /** The side's own Running: svc `status.phase` Running, the peer's `Ready` condition. */
  own: number;
  /** The kubelet's report of the main container running. */
  container: number;
  /** sandboxd's first answer from the Pod's node. */
  answer: number;
}

/** A burst, in seconds from the first create's call until the last one got there. */
export interface BurstTimes {
  own: number;
  answer: number;
}

export interface PeerFigures {
  cold: { svc: ColdTimes[]; peer: ColdTimes[] };
  /** Each side's own Running of a warm create (ms). */
  warm: { svc: number[]; peer: number[] };
  burst: { size: number; svc?: BurstTimes; peer?: BurstTimes };
}

const ms = (xs: number[], p: 50 | 99) =>
  xs.length === 0 ? null : round(p === 50 ? median(xs) : percentile(xs, p), 1);
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null || b === 0 ? null : round(a / b, 2);
const s = (x: number | undefined) => (x === undefined ? null : round(x, 1));

export function peerSummary(f: PeerFigures): Record<string, string | number | null> {
  const cold = (side: 'svc' | 'peer', k: keyof ColdTimes) => f.cold[side].map((t) => t[k]);
  const own = { svc: cold('svc', 'own'), peer: cold('peer', 'own') };
  const answer = { svc: cold('svc', 'answer'), peer: cold('peer', 'answer') };
  return {
    bench: 'peer',
    cluster: 'real',
    svc_cold_p50_ms: ms(own.svc, 50),
    svc_cold_p99_ms: ms(own.svc, 99),
    peer_cold_p50_ms: ms(own.peer, 50),
    peer_cold_p99_ms: ms(own.peer, 99),
    cold_ratio: ratio(ms(own.svc, 50), ms(own.peer, 50)),
    svc_warm_p50_ms: ms(f.warm.svc, 50),
    svc_warm_p99_ms: ms(f.warm.svc, 99),
    peer_warm_p50_ms: ms(f.warm.peer, 50),
    peer_warm_p99_ms: ms(f.warm.peer, 99),
    warm_ratio: ratio(ms(f.warm.svc, 50), ms(f.warm.peer, 50)),
    burst_size: f.burst.size,
    svc_burst50_s: s(f.burst.svc?.own),
    peer_burst50_s: s(f.burst.peer?.own),
    burst_ratio: ratio(s(f.burst.svc?.own), s(f.burst.peer?.own)),
    svc_cold_first_answer_p50_ms: ms(answer.svc, 50),
    svc_cold_first_answer_p99_ms: ms(answer.svc, 99),
    peer_cold_first_answer_p50_ms: ms(answer.peer, 50),
    peer_cold_first_answer_p99_ms: ms(answer.peer, 99),
    cold_first_answer_ratio: ratio(ms(answer.svc, 50), ms(answer.peer, 50)),
    svc_burst50_first_answer_s: s(f.burst.svc?.answer),
    peer_burst50_first_answer_s: s(f.burst.peer?.answer),
    burst_first_answer_ratio: ratio(s(f.burst.svc?.answer), s(f.burst.peer?.answer)),
  };
}
