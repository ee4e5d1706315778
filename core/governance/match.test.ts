import { describe, expect, it } from 'vitest';
import { checkConfigure, checkCreate } from './check.ts';
import { imageAllowed, parseTemplateLabel, templateAllowed, templateLabel } from './match.ts';
import { Policy } from './policy.ts';

describe('imageAllowed: approvedRegistries and allowedAgentImages match at a boundary', () => {
  it.each([
    ['ghcr.io/acme/x', ['ghcr.io/acme'], true],
    ['ghcr.io/acme/x/y:1', ['ghcr.io/acme'], true],
    ['ghcr.io/acme', ['ghcr.io/acme'], true],
    ['ghcr.io/acme:1.2', ['ghcr.io/acme'], true],
    ['ghcr.io/acme@sha256:0123abcd', ['ghcr.io/acme'], true],
    ['ghcr.io/acme/x', ['ghcr.io/acme/'], true],
    ['ghcr.io/acme/tools:v1', ['ghcr.io/acme/tools'], true],
    ['ghcr.io/acme/x', ['docker.io/', 'ghcr.io/acme'], true],
    // the near misses
    ['ghcr.io/acme-evil/x', ['ghcr.io/acme'], false],
    ['ghcr.io/acmex', ['ghcr.io/acme'], false],
    ['ghcr.io/acme-evil/x', ['ghcr.io/acme/'], false],
    ['ghcr.io/acme', ['ghcr.io/acme/'], false],
    ['ghcr.io/acme/tools-evil:v1', ['ghcr.io/acme/tools'], false],
    ['ghcr.io.evil.com/x', ['ghcr.io'], false],
    ['ghcr.io:5000/x', ['ghcr.io'], false],
    ['ghcr.io/acme:1/x', ['ghcr.io/acme'], false],
    ['evil.com/ghcr.io/acme/x', ['ghcr.io/acme'], false],
    ['ghcr.io/acme/x', [], false],
  ])('%s under %j: %s', (image, prefixes, want) => {
    expect(imageAllowed(image, prefixes)).toBe(want);
  });

  it('checkCreate refuses the near miss with the code', () => {
    const base = { mode: 'code', templateName: 'default' } as const;
    const counts = { byUser: 0, total: 0, agents: 0 };
    expect(
      checkCreate(
        { approvedRegistries: ['ghcr.io/acme'] },
        { ...base, imageOverride: 'ghcr.io/acme-evil/x' },
        counts,
      ),
    ).toEqual([
      {
        code: 'image_registry_not_approved',
        message: 'image "ghcr.io/acme-evil/x" is not from an approved registry [ghcr.io/acme]',
      },
    ]);
    expect(
      checkCreate(
        { approvedRegistries: ['ghcr.io/acme'] },
        { ...base, imageOverride: 'ghcr.io/acme/x' },
        counts,
      ),
    ).toEqual([]);
    expect(
      checkCreate(
        { allowedAgentImages: ['ghcr.io/acme/agents'] },
        { ...base, mode: 'agent', imageOverride: 'ghcr.io/acme/agents-evil' },
        counts,
      ).map((v) => v.code),
    ).toEqual(['agent_image_not_approved']);
  });
});

describe('templateAllowed: kind and name', () => {
  const cluster = { kind: 'ClusterSandboxTemplate', name: 'default' } as const;
  const namespaced = { kind: 'SandboxTemplate', name: 'default' } as const;
  it.each([
    [['default'], cluster, true],
    [['default'], { name: 'default' }, true],
    [['default'], namespaced, false],
    [['ClusterSandboxTemplate/default'], cluster, true],
    [['ClusterSandboxTemplate/default'], namespaced, false],
    [['SandboxTemplate/default'], namespaced, true],
    [['SandboxTemplate/default'], cluster, false],
    [['default', 'SandboxTemplate/default'], namespaced, true],
    [['defaults'], cluster, false],
    [['SandboxTemplate/defaul'], namespaced, false],
  ] as const)('%j admits %j: %s', (allowed, ref, want) => {
    expect(templateAllowed(allowed, ref)).toBe(want);
  });

  it('names a template as a policy would list it, and reads status.resolvedTemplate back', () => {
    expect(templateLabel(cluster)).toBe('default');
    expect(templateLabel(namespaced)).toBe('SandboxTemplate/default');
    expect(parseTemplateLabel('ClusterSandboxTemplate/default')).toEqual(cluster);
    expect(parseTemplateLabel('SandboxTemplate/default')).toEqual(namespaced);
    expect(parseTemplateLabel('default')).toEqual(cluster);
  });

  it('checkCreate and checkConfigure refuse a SandboxTemplate named like an allowed cluster one', () => {
    const policy = { allowedTemplates: ['default'] };
    const counts = { byUser: 0, total: 0, agents: 0 };
    expect(
      checkCreate(policy, { mode: 'code', templateName: 'default', templateKind: 'SandboxTemplate' }, counts),
    ).toEqual([
      {
        code: 'template_not_allowed',
        message: 'template "SandboxTemplate/default" is not in allowedTemplates [default]',
      },
    ]);
    expect(checkCreate(policy, { mode: 'code', templateName: 'default' }, counts)).toEqual([]);
    // status.resolvedTemplate carries the kind: a plain-name policy admits its cluster template.
    expect(
      checkConfigure(policy, { mode: 'agent', resolvedTemplate: 'ClusterSandboxTemplate/default' }),
    ).toEqual([]);
    expect(
      checkConfigure(policy, { mode: 'agent', resolvedTemplate: 'SandboxTemplate/default' }).map(
        (v) => v.code,
      ),
    ).toEqual(['template_not_allowed']);
  });

  it('the policy refuses an entry of an unknown kind or not a name', () => {
    expect(
      Policy.safeParse({ allowedTemplates: ['default', 'SandboxTemplate/x', 'ClusterSandboxTemplate/y'] })
        .success,
    ).toBe(true);
    for (const entry of ['Template/x', 'sandboxtemplate/x', 'SandboxTemplate/', 'a b', 'x/y/z'])
      expect(Policy.safeParse({ allowedTemplates: [entry] }).success, entry).toBe(false);
  });
});
