// The configure body, read as it streams in: this file is the door and knows the body's
// shape (which strings are files' contents); configure-json.ts is the tokenizer,
// configure-spool.ts where contents go (limits, hashes, one temporary file),
// configure-base64.ts the streaming base64 decoder.
//
// Why a tokenizer of our own: the bound is one piece of one file in memory, never a whole
// file. Of the maintained streaming JSON parsers on npm (checked 2026-11, by feeding each an
// 8 MiB string in 64 KiB pieces):
// - `@streamparser/json` 0.0.26 builds each string whole; with `emitPartialTokens` it hands
//   out the whole string so far on every write (largest token 8 MiB): no bound.
// - `jsonparse` 1.3.1 (unmaintained since 2017) hands a string out only whole.
// - `clarinet` 0.12.6 holds a string whole and fails past 64 KiB ("Max buffer length
//   exceeded: textNode") unless that cap is raised, which holds it whole again.
// - `stream-json` 3.8.0 keeps the bound: with `packStrings: false` a string comes as
//   `stringChunk` tokens of at most 256 characters. It is not used because its refusals are
//   coarser than ours and the 400 bodies would change: a bad escape and a raw control
//   character are both "Parser cannot parse input: escaped characters"; it has no depth or
//   size limit of its own, so the shape, limits and value building here would stay; and it
//   makes a token object per 256 characters (half a million for a 128 MiB body).
import type { Readable } from 'node:stream';
import { CONFIGURE_LIMITS, ConfigureRequest, filesDigestOfHashes } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import { parsed } from '../openapi/index.ts';
import { StreamingJson, type JsonPath, type StreamTarget } from './configure-json.ts';
import { Spool } from './configure-spool.ts';

/** JSON escaping can double a file's size; past this the body cannot be within the limits. */
export const MAX_CONFIGURE_BODY_BYTES = 2 * CONFIGURE_LIMITS.maxRequestBytes + 1024 * 1024;

export interface SpooledFile {
  path: string;
  /** Decoded bytes. */
  size: number;
  sha256: string;
}

/** A configure body read to its end, its files' contents on disk, never all in memory. */
export interface SpooledConfigure {
  files: SpooledFile[];
  entrypoint: string[];
  installCommand?: string[];
  /** `filesDigest` of the files, computed as they streamed. */
  digest: string;
  /** The files' bytes back to back, in the order of `files` (sandboxd's framing). */
  contents(): Readable;
  /** Drops the spool; call once done with `contents()`. */
  close(): Promise<void>;
}

/**
 * Reads a configure body as it arrives: the JSON is parsed as a stream, each file's
 * `content` decoded chunk by chunk, counted against the configure limits, hashed, and
 * appended to one temporary file (unlinked at once, so nothing outlives the request even
 * if the process dies). Memory stays at about one chunk per request whatever its size;
 * the limits refuse (403 `policy_violation`) the moment a count or size passes them, and
 * 413 stops a body larger than any valid configure.
 */
export async function readConfigureBody(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number,
): Promise<SpooledConfigure> {
  if (declaredLength > MAX_CONFIGURE_BODY_BYTES) throw tooLarge();
  const spool = await Spool.create();
  try {
    const parser = new StreamingJson(configureShape(spool));
    const decoder = new TextDecoder('utf-8');
    let size = 0;
    if (body) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.length;
          if (size > MAX_CONFIGURE_BODY_BYTES) throw tooLarge();
          await parser.push(decoder.decode(value, { stream: true }));
        }
      } catch (err) {
        // Refused part way: read the rest (up to the bound) and drop it, so the answer goes
        // out on a connection with nothing unread in it and reaches the caller.
        while (size <= MAX_CONFIGURE_BODY_BYTES) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done || !value) break;
          size += value.length;
        }
        throw err;
      } finally {
        reader.releaseLock();
      }
    }
    await parser.push(decoder.decode());
    const root = parser.end();
    // The one validation hook, as for every other body (this one is read as it streams in).
    const request = parsed(ConfigureRequest, root === undefined ? {} : root);
    const files = request.files.map((f, i) => ({ path: f.path, ...spool.file(i) }));
    return {
      files,
      entrypoint: request.entrypoint,
      ...(request.installCommand ? { installCommand: request.installCommand } : {}),
      digest: filesDigestOfHashes(files),
      contents: () => spool.contents(),
      close: () => spool.close(),
    };
  } catch (err) {
    await spool.close();
    throw err;
  }
}

const tooLarge = () =>
  new HttpError(
    413,
    'payload_too_large',
    `the request body is larger than ${MAX_CONFIGURE_BODY_BYTES} bytes`,
  );

/**
 * The configure body's shape, as the tokenizer sees it: an object in `files` is a file
 * (counted against the limit as it begins), and `files[i].content` or
 * `files[i].contentBase64` is its content, streamed to the spool.
 */
function configureShape(spool: Spool): StreamTarget {
  const isFile = (path: JsonPath) => path.length === 2 && path[0] === 'files' && typeof path[1] === 'number';
  return {
    streamed: (path) =>
      path.length === 3 && isFile(path.slice(0, 2)) && (path[2] === 'content' || path[2] === 'contentBase64'),
    objectStarts: (path) => {
      if (isFile(path)) spool.fileStarted(path[1] as number);
    },
    begin: (path, file) =>
      spool.contentStarted(
        path[1] as number,
        typeof file.path === 'string' ? file.path : undefined,
        path[2] === 'contentBase64',
      ),
    append: (text) => spool.append(text),
    flush: () => spool.flush(),
    end: () => spool.contentEnded(),
  };
}
