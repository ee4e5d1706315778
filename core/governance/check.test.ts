import { describe, expect, it } from 'vitest';
import {
  checkConfigure,
  checkCreate,
  isCounted,
  resolveMaxConcurrentInvokes,
  type Candidate,
  type Counts,
} from './check.ts';
import { checkConfigureLimits } from './limits.ts';
import { Policy, resolvePolicy } from './policy.ts';

const base: Candidate = { mode: 'code', templateName: 'default' };
const none: Counts = { byUser: 0, total: 0, agents: 0 };

describe('resolvePolicy', () => {
  it('overrides field by field; an empty namespace field falls through to the cluster value', () => {
    const cluster: Policy = {
      maxCpu: '2',
      maxSandboxesTotal: 10,
      allowedTemplates: ['default'],
      maxTimeout: '8h',
    };
    const namespace: Policy = { maxCpu: '1', allowedTemplates: [], maxSandboxesPerUser: 3 };
    expect(resolvePolicy(cluster, namespace)).toEqual({
      maxCpu: '1',
      maxSandboxesTotal: 10,
      allowedTemplates: ['default'],
      maxTimeout: '8h',
      maxSandboxesPerUser: 3,
    });
  });

  it('is empty with no policies, and the cluster alone without an override', () => {
    expect(resolvePolicy(undefined, undefined)).toEqual({});
    expect(resolvePolicy({ maxMemory: '4Gi' }, undefined)).toEqual({ maxMemory: '4Gi' });
  });
});

describe('Policy schema', () => {
  it('refuses unknown fields, bad quantities and bad durations with paths', () => {
    const r = Policy.safeParse({ maxCpu: 'lots', maxTimeout: '1 hour', maxSandboxes: 3 });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.') || i.code).sort()).toEqual([
      'maxCpu',
      'maxTimeout',
      'unrecognized_keys',
    ]);
  });
});

describe('checkCreate: one row per code', () => {
  it.each<[string, Policy, Partial<Candidate>, Partial<Counts>, string, string]>([
    [
      'template_not_allowed',
      { allowedTemplates: ['minimal'] },
      {},
      {},
      'template_not_allowed',
      'template "default" is not in allowedTemplates [minimal]',
    ],
    [
      'image_registry_not_approved',
      { approvedRegistries: ['ghcr.io/acme/'] },
      { imageOverride: 'docker.io/evil' },
      {},
      'image_registry_not_approved',
      'image "docker.io/evil" is not from an approved registry [ghcr.io/acme/]',
    ],
    [
      'namespace_quota_exceeded',
      { maxSandboxesTotal: 3 },
      {},
      { total: 3 },
      'namespace_quota_exceeded',
      'the namespace has 3 sandboxes; maxSandboxesTotal is 3',
    ],
    [
      'user_quota_exceeded',
      { maxSandboxesPerUser: 5 },
      {},
      { byUser: 5 },
      'user_quota_exceeded',
      'you have 5 sandboxes in the namespace; maxSandboxesPerUser is 5',
    ],
    [
      'cpu_limit_exceeded',
      { maxCpu: '1' },
      { cpuLimit: '1001m' },
      {},
      'cpu_limit_exceeded',
      'CPU limit 1001m is above maxCpu 1',
    ],
    [
      'memory_limit_exceeded',
      { maxMemory: '1Gi' },
      { memoryLimit: '1073741825' },
      {},
      'memory_limit_exceeded',
      'memory limit 1073741825 is above maxMemory 1Gi',
    ],
    [
      'ephemeral_storage_limit_exceeded',
      { maxEphemeralStorage: '10Gi' },
      { ephemeralStorageLimit: '10241Mi' },
      {},
      'ephemeral_storage_limit_exceeded',
      'ephemeral-storage limit 10241Mi is above maxEphemeralStorage 10Gi',
    ],
    [
      'storage_limit_exceeded',
      { maxStorage: '10Gi' },
      { storage: '11Gi' },
      {},
      'storage_limit_exceeded',
      'storage 11Gi is above maxStorage 10Gi',
    ],
    [
      'timeout_exceeded (90m vs 1h)',
      { maxTimeout: '1h' },
      { timeout: '90m' },
      {},
      'timeout_exceeded',
      'timeout 90m is above maxTimeout 1h',
    ],
    [
      'timeout_exceeded (infinite 0)',
      { maxTimeout: '8h' },
      { timeout: '0' },
      {},
      'timeout_exceeded',
      'timeout 0 (infinite) is above maxTimeout 8h',
    ],
    [
      'idle_timeout_exceeded',
      { maxIdleTimeout: '30m' },
      { idleTimeout: '1h' },
      {},
      'idle_timeout_exceeded',
      'idleTimeout 1h is above maxIdleTimeout 30m',
    ],
    [
      'agent_sandbox_quota_exceeded',
      { maxAgentSandboxes: 2 },
      { mode: 'agent' },
      { agents: 2 },
      'agent_sandbox_quota_exceeded',
      'the namespace has 2 agent sandboxes; maxAgentSandboxes is 2',
    ],
    [
      'agent_image_not_approved',
      { allowedAgentImages: ['ghcr.io/acme/agents/'] },
      { mode: 'agent', imageOverride: 'ghcr.io/acme/other' },
      {},
      'agent_image_not_approved',
      'agent image "ghcr.io/acme/other" is not in allowedAgentImages [ghcr.io/acme/agents/]',
    ],
    [
      'root_sandbox_not_allowed',
      { allowRootSandboxes: false },
      { runAsRoot: true },
      {},
      'root_sandbox_not_allowed',
      'template "default" runs as root (runAsUser: 0); policy allowRootSandboxes is not true',
    ],
    [
      'root_sandbox_not_allowed when the policy is unset',
      {},
      { runAsRoot: true },
      {},
      'root_sandbox_not_allowed',
      'template "default" runs as root (runAsUser: 0); policy allowRootSandboxes is not true',
    ],
  ])('%s', (_name, policy, candidate, counts, code, message) => {
    expect(checkCreate(policy, { ...base, ...candidate }, { ...none, ...counts })).toEqual([
      { code, message },
    ]);
  });

  it.each<[string, Policy, Partial<Candidate>, Partial<Counts>]>([
    [
      'limits at the cap, in other units',
      { maxCpu: '1', maxMemory: '1Gi', maxStorage: '10Gi', maxEphemeralStorage: '1Gi' },
      { cpuLimit: '1000m', memoryLimit: '1073741824', storage: '10Gi', ephemeralStorageLimit: '1024Mi' },
      {},
    ],
    ['a timeout equal to the cap (1h30m vs 90m)', { maxTimeout: '90m' }, { timeout: '1h30m' }, {}],
    [
      'quotas one below',
      { maxSandboxesTotal: 3, maxSandboxesPerUser: 2, maxAgentSandboxes: 1 },
      { mode: 'agent' },
      { total: 2, byUser: 1, agents: 0 },
    ],
    ['maxAgentSandboxes does not count code sandboxes', { maxAgentSandboxes: 0 }, { mode: 'code' }, {}],
    [
      'allowedAgentImages ignores code sandboxes and the template image',
      { allowedAgentImages: ['x/'] },
      { mode: 'code', imageOverride: 'y/z' },
      {},
    ],
    ['allowedAgentImages trusts the template image', { allowedAgentImages: ['x/'] }, { mode: 'agent' }, {}],
    [
      'an unset policy changes nothing',
      {},
      { mode: 'agent', imageOverride: 'any', cpuLimit: '64', timeout: '0' },
      { total: 1000, byUser: 1000, agents: 1000 },
    ],
    ['an infinite cap allows an infinite timeout', { maxTimeout: '0' }, { timeout: '0' }, {}],
    ['root where allowRootSandboxes is true', { allowRootSandboxes: true }, { runAsRoot: true }, {}],
  ])('passes: %s', (_name, policy, candidate, counts) => {
    expect(checkCreate(policy, { ...base, ...candidate }, { ...none, ...counts })).toEqual([]);
  });

  it('reports every violation at once', () => {
    const policy: Policy = {
      allowedTemplates: ['minimal'],
      maxSandboxesTotal: 1,
      maxAgentSandboxes: 1,
      maxCpu: '1',
    };
    const codes = checkCreate(
      policy,
      { ...base, mode: 'agent', cpuLimit: '2' },
      { byUser: 1, total: 1, agents: 1 },
    ).map((v) => v.code);
    expect(codes).toEqual([
      'template_not_allowed',
      'namespace_quota_exceeded',
      'agent_sandbox_quota_exceeded',
      'cpu_limit_exceeded',
    ]);
  });
});

describe('checkConfigure and limits', () => {
  it('re-checks the resolved template and the agent image', () => {
    expect(
      checkConfigure({ allowedTemplates: ['minimal'] }, { resolvedTemplate: 'default', mode: 'agent' }).map(
        (v) => v.code,
      ),
    ).toEqual(['template_not_allowed']);
    expect(
      checkConfigure({ allowedAgentImages: ['a/'] }, { mode: 'agent', imageOverride: 'b/c' }).map(
        (v) => v.code,
      ),
    ).toEqual(['agent_image_not_approved']);
    expect(checkConfigure({ allowedAgentImages: ['a/'] }, { mode: 'agent' })).toEqual([]);
  });

  it('counts files and bytes at and just over each bound', () => {
    const MiB = 1024 * 1024;
    const files = (n: number, size: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/workspace/${i}`, size }));
    expect(checkConfigureLimits(files(200, 1))).toEqual([]);
    expect(checkConfigureLimits(files(201, 1)).map((v) => v.code)).toEqual(['configure_too_many_files']);
    expect(checkConfigureLimits(files(1, 32 * MiB))).toEqual([]);
    expect(checkConfigureLimits(files(1, 32 * MiB + 1)).map((v) => v.code)).toEqual([
      'configure_file_too_large',
    ]);
    expect(checkConfigureLimits(files(4, 32 * MiB))).toEqual([]);
    expect(
      checkConfigureLimits([...files(4, 32 * MiB), { path: '/workspace/x', size: 1 }]).map((v) => v.code),
    ).toEqual(['configure_request_too_large']);
  });
});

describe('resolveMaxConcurrentInvokes', () => {
  it.each([
    [{}, 5, 5],
    [{ maxConcurrentInvokesPerSandbox: 2 }, 5, 2],
    [{ maxConcurrentInvokesPerSandbox: 8 }, 5, 5],
    [{}, undefined, 1],
  ] as const)('%j asking %s → %i', (policy, requested, want) => {
    expect(resolveMaxConcurrentInvokes(policy, requested)).toBe(want);
  });
});

describe('isCounted: whether a create needs the quota ledger', () => {
  it.each([
    [{}, 'code', false],
    [{}, 'agent', false],
    [{ maxCpu: '2', allowedTemplates: ['default'] }, 'agent', false],
    [{ maxSandboxesTotal: 10 }, 'code', true],
    [{ maxSandboxesPerUser: 3 }, 'code', true],
    [{ maxAgentSandboxes: 2 }, 'code', false],
    [{ maxAgentSandboxes: 2 }, 'agent', true],
  ] as [Policy, 'code' | 'agent', boolean][])('%j for a %s sandbox: %s', (policy, mode, counted) => {
    expect(isCounted(policy, mode)).toBe(counted);
  });
});
