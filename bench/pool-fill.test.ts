import { describe, expect, test } from 'vitest';
import { bytes, request } from './pool-fill.ts';

describe('pool-fill', () => {
  test('memory quantities in bytes, as the nodes and Pods write them', () => {
    expect(bytes('32Mi')).toBe(32 * 2 ** 20);
    expect(bytes('24581684Ki')).toBe(24581684 * 1024);
    expect(bytes('1Gi')).toBe(2 ** 30);
    expect(bytes('128M')).toBe(128_000_000);
    expect(bytes('1000')).toBe(1000);
    expect(bytes('0')).toBe(0);
  });

  test("a Pod's effective request: its containers' sum, or its largest init container's", () => {
    const pod = {
      spec: {
        initContainers: [{ name: 'i', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
        containers: [
          { name: 'a', resources: { requests: { cpu: '10m', memory: '32Mi' } } },
          { name: 'b', resources: { requests: { cpu: '50m', memory: '128Mi' } } },
        ],
      },
    };
    expect(request(pod, 'cpu')).toBe(60);
    expect(request(pod, 'memory')).toBe(160 * 2 ** 20);
    const big = {
      spec: { ...pod.spec, initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }] },
    };
    expect(request(big, 'cpu')).toBe(1000);
  });
});
