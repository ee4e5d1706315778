import { describe, expect, it } from 'vitest';
import { customResourceDefinitions } from './definitions.ts';

type Schema = Record<string, unknown>;

/**
 * Paths of every property, at any depth, whose schema has no description. The root's
 * `metadata` is the exception: the apiserver refuses a description there and explains it
 * with ObjectMeta's own.
 */
function undescribed(node: Schema, path: string, root = false): string[] {
  const missing: string[] = [];
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  for (const [name, child] of Object.entries(properties)) {
    const at = `${path}.${name}`;
    const exempt = root && name === 'metadata';
    if (!exempt && (typeof child.description !== 'string' || child.description.trim() === '')) {
      missing.push(at);
    }
    missing.push(...undescribed(child, at));
  }
  if (node.items) missing.push(...undescribed(node.items as Schema, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    missing.push(...undescribed(node.additionalProperties as Schema, `${path}{}`));
  }
  return missing;
}

describe('generated CRDs', () => {
  it.each(customResourceDefinitions().map((crd) => [crd.spec.names.kind, crd] as const))(
    '%s describes every field, so `kubectl explain` has something to say',
    (kind, crd) => {
      const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
      expect(undescribed(schema, kind.toLowerCase(), true)).toEqual([]);
    },
  );
});
