import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Argv } from '../sandbox/index.ts';

/** `POST /sandboxes/{id}/configure`: files to write, the entrypoint, an optional install command. */
export const ConfigureRequest = z
  .object({
    files: z
      .array(
        z
          .object({
            path: z.string().startsWith('/', 'must be an absolute path').max(4096),
            content: z.string().optional().describe('The file as text (UTF-8)'),
            contentBase64: z.string().optional().describe('The file as base64, for binary files'),
          })
          .strict()
          .refine((f) => (f.content === undefined) !== (f.contentBase64 === undefined), {
            message: 'give exactly one of content and contentBase64',
          }),
      )
      .default([]),
    entrypoint: Argv.min(1, 'must name a program'),
    installCommand: Argv.min(1, 'must name a program when given').optional(),
  })
  .strict()
  .meta({ id: 'ConfigureRequest' });
export type ConfigureRequest = z.infer<typeof ConfigureRequest>;

/** SSE `result`: the last event of a configure stream. */
export const ConfigureResult = z
  .object({
    installCommandHash: z.string(),
    installExitCode: z.int(),
    lastConfiguredAt: z.string(),
    entrypoint: z.array(z.string()),
    maxConcurrentInvokes: z.int().min(1),
    skipped: z.boolean(),
  })
  .meta({ id: 'ConfigureResult' });
export type ConfigureResult = z.infer<typeof ConfigureResult>;

/** `POST /sandboxes/{id}/invoke/cancel`. */
export const CancelRequest = z
  .object({ invokeId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'is not an invoke id') })
  .strict()
  .meta({ id: 'CancelRequest' });

/** Largest invoke body (the entrypoint's stdin); above it the API answers 413. */
export const MAX_INVOKE_BODY_BYTES = 16 * 1024 * 1024;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Digest of a configure's files, independent of their order: the API records it on the
 * Sandbox so the operator can key the install on files it never sees.
 */
export function filesDigest(files: { path: string; content: string }[]): string {
  return filesDigestOfHashes(files.map((f) => ({ path: f.path, sha256: sha256(f.content) })));
}

/** `filesDigest` from each file's SHA-256 (hex), for files hashed as they stream. */
export function filesDigestOfHashes(files: { path: string; sha256: string }[]): string {
  const entries = files.map((f) => `${f.path}\0${f.sha256}`).sort();
  return sha256(entries.join('\n'));
}

/**
 * `installCommandHash`: what makes a configure a repeat. Same files and same install
 * command give the same hash, and the install does not run again.
 */
export function installCommandHash(installCommand: string[] | undefined, digest: string): string {
  return `sha256:${sha256(JSON.stringify({ installCommand: installCommand ?? null, files: digest }))}`;
}

/** The sandboxd run id of the install a hash stands for: one run per distinct configure. */
export const installRunId = (hash: string) => `install-${hash.replace(/^sha256:/, '').slice(0, 32)}`;
