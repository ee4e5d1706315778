import { ErrorBody, PolicyViolation } from '../../core/index.ts';
import type { Status } from './document.ts';

// The refusals many groups' operations share, beside `operation` (route.ts): each group's
// operations.ts imports them here, not from another group's operations.

/** Every sandbox endpoint: its id can be malformed (400), absent (404) or someone else's (403). */
export const onSandbox: Status[] = [400, 401, 403, 404, 503];
/** A 403 is the spec's `policy_violation` or, when the cluster refuses the service, an `Error`. */
export const governed = { 403: [PolicyViolation, ErrorBody] };

// An admin-only table (governance policies, API keys): 401 when the deployment cannot have
// admins, 403 for a non-admin; a write's body can be malformed (400) or too large (413) and
// lose a race with another write (409); a delete can name nothing (404).
/** Listing an admin table. */
export const adminList: Status[] = [401, 403, 503];
/** Writing a row of an admin table. */
export const adminWrite: Status[] = [400, 401, 403, 409, 413, 503];
/** Deleting a row of an admin table by its path parameter. */
export const adminDelete: Status[] = [400, 401, 403, 404, 409, 503];
