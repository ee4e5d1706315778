import { ErrorBody, PolicyViolation } from '../../core/index.ts';
import type { Status } from './document.ts';

// The refusals many groups' operations share, beside `operation` (route.ts): each group's
// operations.ts imports them here, not from another group's operations.

/** Every sandbox endpoint: its id can be malformed (400), absent (404) or someone else's (403). */
export const onSandbox: Status[] = [400, 401, 403, 404, 503];
/** A 403 is the spec's `policy_violation` or, when the cluster refuses the service, an `Error`. */
export const governed = { 403: [PolicyViolation, ErrorBody] };
