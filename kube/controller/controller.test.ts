import { describe, expect, test } from 'vitest';
import { ownerByLabel, ownerByReference } from './controller.ts';

describe('owned objects map to their owner key', () => {
  const ownerRef = (kind: string, name: string, controller: boolean) => ({
    apiVersion: 'svc.io/v1alpha1',
    kind,
    name,
    uid: 'u',
    controller,
  });

  test.each([
    [{ namespace: 'ns', labels: { 'svc.io/sandbox': 'a' } }, 'ns/a'],
    [{ labels: { 'svc.io/sandbox': 'a' } }, 'a'],
    [{ namespace: 'ns', labels: { other: 'a' } }, undefined],
    [{ namespace: 'ns' }, undefined],
  ])('by label: %j → %s', (metadata, key) => {
    expect(ownerByLabel('svc.io/sandbox')({ metadata })).toBe(key);
  });

  test.each([
    [[ownerRef('Sandbox', 'a', true)], 'ns/a'],
    [[ownerRef('Sandbox', 'a', false)], undefined],
    [[ownerRef('Other', 'a', true)], undefined],
    [[ownerRef('Other', 'b', true), ownerRef('Sandbox', 'a', true)], 'ns/a'],
    [undefined, undefined],
  ])('by controlling owner reference: %j → %s', (ownerReferences, key) => {
    expect(ownerByReference('Sandbox')({ metadata: { namespace: 'ns', ownerReferences } })).toBe(key);
  });
});
