import { describe, expect, it } from 'vitest';
import { checkCreate, type Candidate, type Counts } from './check.ts';
import { effectiveRuntimeClass } from './runtime.ts';

const base: Candidate = { mode: 'code', templateName: 'default' };
const none: Counts = { byUser: 0, total: 0, agents: 0 };
const codes = (v: { code: string }[]) => v.map((x) => x.code);

describe('effectiveRuntimeClass', () => {
  it("is the sandbox's, else the template's, else the policy's default", () => {
    expect(effectiveRuntimeClass({}, {})).toBeUndefined();
    expect(effectiveRuntimeClass({ defaultRuntimeClass: 'gvisor' }, {})).toBe('gvisor');
    expect(effectiveRuntimeClass({ defaultRuntimeClass: 'gvisor' }, { template: 'kata' })).toBe('kata');
    expect(
      effectiveRuntimeClass({ defaultRuntimeClass: 'gvisor' }, { template: 'kata', sandbox: 'runc2' }),
    ).toBe('runc2');
  });
});

describe('checkCreate: runtime classes', () => {
  it('refuses a template without a runtime class under allowedRuntimeClasses', () => {
    const v = checkCreate({ allowedRuntimeClasses: ['gvisor'] }, base, none);
    expect(v).toEqual([
      {
        code: 'runtime_class_not_allowed',
        message: 'runtime class (none: the node default) is not in allowedRuntimeClasses [gvisor]',
      },
    ]);
  });

  it('admits it when defaultRuntimeClass applies and is allowed', () => {
    const policy = { allowedRuntimeClasses: ['gvisor'], defaultRuntimeClass: 'gvisor' };
    expect(checkCreate(policy, base, none)).toEqual([]);
  });

  it("admits the template's class when allowed, refuses it when not", () => {
    const policy = { allowedRuntimeClasses: ['gvisor'] };
    expect(checkCreate(policy, { ...base, templateRuntimeClass: 'gvisor' }, none)).toEqual([]);
    expect(checkCreate(policy, { ...base, templateRuntimeClass: 'kata' }, none)).toEqual([
      {
        code: 'runtime_class_not_allowed',
        message: 'runtime class "kata" is not in allowedRuntimeClasses [gvisor]',
      },
    ]);
  });

  it('lets a Sandbox choose its own runtime class only among allowedRuntimeClasses', () => {
    expect(checkCreate({}, { ...base, runtimeClassOverride: 'gvisor' }, none)).toEqual([
      {
        code: 'runtime_class_not_allowed',
        message:
          'a Sandbox may set runtimeClassName only when the policy lists allowedRuntimeClasses; "gvisor" is not allowed',
      },
    ]);
    const policy = { allowedRuntimeClasses: ['gvisor', 'kata'] };
    expect(
      checkCreate(policy, { ...base, templateRuntimeClass: 'gvisor', runtimeClassOverride: 'kata' }, none),
    ).toEqual([]);
    expect(codes(checkCreate(policy, { ...base, runtimeClassOverride: 'runc' }, none))).toEqual([
      'runtime_class_not_allowed',
    ]);
  });

  it('refuses hostUsers: false where the cluster says its nodes cannot', () => {
    expect(checkCreate({}, { ...base, hostUsers: false }, none)).toEqual([
      {
        code: 'user_namespaces_unavailable',
        message:
          'the template asks for hostUsers: false (a user namespace), but this cluster does not offer user namespaces (node.userNamespaces is off)',
      },
    ]);
    expect(checkCreate({}, { ...base, hostUsers: false }, none, { userNamespaces: true })).toEqual([]);
    expect(checkCreate({}, { ...base, hostUsers: true }, none)).toEqual([]);
  });
});
