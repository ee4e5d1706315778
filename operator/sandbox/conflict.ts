import type { Stage } from '../../core/index.ts';
import type { Pass, StepResult } from './context.ts';

/**
 * An object of a name the sandbox needs that is not its own. It is never adopted, changed or
 * deleted: the pass ends with it (`onConflict`), and the sandbox starts once the name is
 * free. `leaving`: it is being deleted already (an earlier sandbox's of the same name).
 */
export class NameConflict extends Error {
  readonly leaving: boolean;

  constructor(kind: string, objectName: string, leaving: boolean) {
    super(
      leaving
        ? `waiting for ${kind} ${objectName}, which is not this sandbox's, to finish deleting`
        : `${kind} ${objectName} exists and is not this sandbox's: it is left alone, and the sandbox starts once the name is free`,
    );
    this.name = 'NameConflict';
    this.leaving = leaving;
  }
}

/**
 * What a pass that met a NameConflict says: the sandbox waits (an object that is going) or
 * is in Error with reason NameConflict, and a Warning Event says so once (not again while
 * its Ready condition already does). Looked at again soon: the stranger is not watched
 * (the caches hold only the sandbox label), so its removal raises no event here.
 */
export async function onConflict(pass: Pass, conflict: NameConflict): Promise<StepResult & { stage: Stage }> {
  if (conflict.leaving)
    return { stage: { kind: 'Waiting', message: conflict.message }, requeueMs: LEAVING_RECHECK_MS };
  // Said already: in the cached status, or in the pass's last write the cache does not show yet.
  const ready = pass.sandbox.status?.conditions?.find((c) => c.type === 'Ready');
  const shown =
    (ready?.reason === 'NameConflict' && ready.message === conflict.message) ||
    !!pass.d.written.get(pass.key)?.json.includes(JSON.stringify(conflict.message));
  if (!shown) {
    pass.log.warn({ conflict: conflict.message }, 'a name the sandbox needs is taken');
    await pass.d.event(pass, 'Warning', 'NameConflict', conflict.message);
  }
  return { stage: { kind: 'NameConflict', message: conflict.message }, requeueMs: CONFLICT_RECHECK_MS };
}

/** How soon a sandbox waiting for an object of its name to finish deleting is looked at again. */
const LEAVING_RECHECK_MS = 1_000;
/** How soon a sandbox whose name is taken looks again whether it is free. */
const CONFLICT_RECHECK_MS = 10_000;
