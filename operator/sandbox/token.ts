import { SandboxPod, sandboxObjectsName } from '../../core/index.ts';
import { tokenSecret } from '../manifests/index.ts';
import type { Adopted } from '../warmpool/index.ts';
import type { Pass, StepResult } from './context.ts';
import { Pod, TokenSecret, ensure, remove } from './owned.ts';

/**
 * sandboxd's token Secret, its token derived from the installation key and the Sandbox (no
 * read needed to know it). A Secret holding another token (from before tokens were derived,
 * or an older key) is replaced, the Pod first, so the one created after it mounts the new one.
 */
export async function ensureToken(pass: Pass, adopted: Adopted | undefined): Promise<StepResult> {
  // A member claimed in this pass brings its Secret: the claim moves it to the sandbox and
  // writes the sandbox's token into it (the caches show it a watch event later).
  if (adopted) return {};
  const token = await pass.d.locator.token(pass.namespace, pass.name, pass.sandbox.metadata.uid!);
  const encoded = Buffer.from(token).toString('base64');
  const body = tokenSecret(pass.sandbox, token);
  await ensure(
    pass,
    TokenSecret,
    body,
    (current) => current.data?.[SandboxPod.tokenKey] !== encoded,
    async () => {
      await remove(pass, Pod, sandboxObjectsName(pass.sandbox));
      await TokenSecret.replace(pass.d, pass.namespace, body.metadata!.name!, body);
      pass.log.info('sandboxd token replaced by the derived one; the Pod restarts with it');
    },
  );
  return {};
}
