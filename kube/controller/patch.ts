import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** Options that make a client-node patch call send a JSON merge patch. */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** Options for a JSON Patch (lists edited under a `test` guard). */
export const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
