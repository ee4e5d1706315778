import type { Condition } from '../../core/index.ts';

export type ConditionInput = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * Sets one condition in a list, as apimachinery's `meta.SetStatusCondition` does:
 * `lastTransitionTime` changes only when `status` flips; reason, message and
 * `observedGeneration` are always brought up to date. Returns a new list.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: ConditionInput,
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i < 0 ? undefined : list[i];
  const condition: Condition = {
    ...next,
    lastTransitionTime:
      prev && prev.status === next.status
        ? prev.lastTransitionTime
        : now.toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  if (i < 0) list.push(condition);
  else list[i] = condition;
  return list;
}
