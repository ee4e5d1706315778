// The dev stacks' API keys (admin, alice, bob): `make dev` and hack/cluster/install.sh.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ApiKeyStore } from '../../api/index.ts';

export interface DevKeys {
  admin: string;
  alice: string;
  bob: string;
}

/**
 * The keys an env file (`export SVC_ADMIN_KEY=…`) holds when they all still work, else new
 * ones, so a person's shell and scripts keep working across restarts of the same stack.
 */
export async function apiKeys(store: ApiKeyStore, envPath: string): Promise<DevKeys> {
  if (existsSync(envPath)) {
    const text = await readFile(envPath, 'utf8');
    const read = (k: string) => new RegExp(`^export ${k}=(.+)$`, 'm').exec(text)?.[1];
    const previous = { admin: read('SVC_ADMIN_KEY'), alice: read('SVC_ALICE_KEY'), bob: read('SVC_BOB_KEY') };
    const valid = await Promise.all(
      Object.values(previous).map(async (k) => k !== undefined && (await store.lookup(k)) !== undefined),
    );
    if (valid.every(Boolean)) return previous as DevKeys;
  }
  return {
    admin: (await store.create({ user: 'admin', admin: true })).key,
    alice: (await store.create({ user: 'alice' })).key,
    bob: (await store.create({ user: 'bob' })).key,
  };
}
