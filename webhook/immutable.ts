import type { Verdict } from './review.ts';

/** Fields a Sandbox keeps for life (the CRD's CEL rules say the same, for when this is off). */
export const IMMUTABLE_FIELDS = [
  'mode',
  'templateRef',
  'cloneFromSnapshot',
  'createdBy',
  'runtimeClassName',
] as const;

type Spec = Record<string, unknown> | undefined;

/**
 * Denies an update that changes or removes an immutable field, naming every one of them.
 * A field unset before may be set once (the mutating webhook or the API sets createdBy).
 */
export function checkImmutable(oldSpec: Spec, newSpec: Spec): Verdict {
  const changed = IMMUTABLE_FIELDS.filter((field) => {
    const before = oldSpec?.[field];
    return before !== undefined && JSON.stringify(before) !== JSON.stringify(newSpec?.[field]);
  });
  if (changed.length === 0) return { allowed: true };
  return {
    allowed: false,
    reason: 'immutable_field',
    message: `immutable_field: ${changed.map((f) => `spec.${f}`).join(', ')} cannot be changed after creation`,
  };
}
