import { describe, expect, it } from 'vitest';
import { peerSummary } from './peer-summary.ts';

const cold = (own: number, answer: number) => ({ own, container: answer - 5, answer });

describe('peerSummary', () => {
  it("puts each side's own Running under the issue's keys and the shared first answer beside", () => {
    const line = peerSummary({
      cold: {
        svc: [cold(900, 700), cold(1000, 800), cold(3000, 2000)],
        peer: [cold(2000, 600), cold(2500, 1000), cold(2600, 1100)],
      },
      warm: { svc: [100, 120, 400], peer: [200, 240, 300] },
      burst: { size: 50, svc: { own: 20.04, answer: 18 }, peer: { own: 40, answer: 24 } },
    });
    expect(line).toEqual({
      bench: 'peer',
      cluster: 'real',
      svc_cold_p50_ms: 1000,
      svc_cold_p99_ms: 3000,
      peer_cold_p50_ms: 2500,
      peer_cold_p99_ms: 2600,
      cold_ratio: 0.4,
      svc_warm_p50_ms: 120,
      svc_warm_p99_ms: 400,
      peer_warm_p50_ms: 240,
      peer_warm_p99_ms: 300,
      warm_ratio: 0.5,
      burst_size: 50,
      svc_burst50_s: 20,
      peer_burst50_s: 40,
      burst_ratio: 0.5,
      svc_cold_first_answer_p50_ms: 800,
      svc_cold_first_answer_p99_ms: 2000,
      peer_cold_first_answer_p50_ms: 1000,
      peer_cold_first_answer_p99_ms: 1100,
      cold_first_answer_ratio: 0.8,
      svc_burst50_first_answer_s: 18,
      peer_burst50_first_answer_s: 24,
      burst_first_answer_ratio: 0.75,
    });
  });

  it('gives null, not NaN, for what was not measured (no burst, no runs)', () => {
    const line = peerSummary({
      cold: { svc: [], peer: [] },
      warm: { svc: [], peer: [] },
      burst: { size: 0 },
    });
    expect(line.svc_cold_p50_ms).toBeNull();
    expect(line.cold_ratio).toBeNull();
    expect(line.svc_burst50_s).toBeNull();
    expect(line.burst_first_answer_ratio).toBeNull();
    expect(JSON.stringify(line)).not.toContain('NaN');
  });
});
