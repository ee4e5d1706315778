import { z } from 'zod';
import { Policy } from '../governance/index.ts';

/** `GET /governance/policies`: the cluster default and every namespace override. */
export const StoredPolicies = z
  .object({ cluster: Policy.optional(), namespaces: z.record(z.string(), Policy) })
  .meta({ id: 'StoredPolicies' });

/** `GET /governance/effective`: the policy in force in a namespace. */
export const EffectivePolicy = z
  .object({ namespace: z.string(), policy: Policy })
  .meta({ id: 'EffectivePolicy' });
