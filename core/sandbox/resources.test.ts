import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, sandboxResources } from './resources.ts';
import { SandboxSpec } from './spec.ts';

const template = {
  resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '4Gi' } },
};
const spec = (resources?: object) =>
  SandboxSpec.parse({ templateRef: { name: 'default' }, ...(resources ? { resources } : {}) });

describe('sandboxResources: what the sandbox container gets', () => {
  it('`limits: {}` keeps the template limits; ephemeral storage gets its default', () => {
    expect(sandboxResources(template, spec({ limits: {} }))).toEqual({
      requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '0' },
      limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': DEFAULT_LIMITS['ephemeral-storage'] },
    });
  });

  it('merges field by field: a sandbox value replaces only its own field', () => {
    expect(sandboxResources(template, spec({ limits: { memory: '1Gi' }, requests: { cpu: '1' } }))).toEqual({
      requests: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '0' },
      limits: { cpu: '2', memory: '1Gi', 'ephemeral-storage': '10Gi' },
    });
    expect(sandboxResources(template, spec({ limits: { cpu: 64 } })).limits.cpu).toBe('64');
  });

  it('a zero limit is no way out: it counts as unset', () => {
    const r = sandboxResources(
      template,
      spec({ limits: { cpu: '0', memory: '0Mi', 'ephemeral-storage': 0 } }),
    );
    expect(r.limits).toEqual({ cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' });
  });

  it('no template and no sandbox values: every limit defaulted, requests left at 0', () => {
    expect(sandboxResources(undefined, spec())).toEqual({
      requests: { cpu: '0', memory: '0', 'ephemeral-storage': '0' },
      limits: DEFAULT_LIMITS,
    });
  });

  it('a default limit is raised to a higher request, so the Pod stays valid and governance sees it', () => {
    const r = sandboxResources({ resources: { requests: { memory: '8Gi' } } }, spec());
    expect(r.requests.memory).toBe('8Gi');
    expect(r.limits.memory).toBe('8Gi');
  });

  it('an explicit limit keeps an unset request unset (Kubernetes copies the limit, as ever)', () => {
    const r = sandboxResources({ resources: { limits: { cpu: '1' } } }, spec());
    expect(r.requests.cpu).toBeUndefined();
    expect(r.limits.cpu).toBe('1');
  });
});

describe("SandboxSpec ports: never sandboxd's", () => {
  it('refuses 9000 with the field and a message, accepts its neighbours', () => {
    const r = SandboxSpec.safeParse({ templateRef: { name: 'd' }, ports: [{ port: 8080 }, { port: 9000 }] });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['ports.1.port', "must not be 9000: it is sandboxd's port"],
    ]);
    expect(
      SandboxSpec.safeParse({ templateRef: { name: 'd' }, ports: [{ port: 8999 }, { port: 9001 }] }).success,
    ).toBe(true);
  });
});
