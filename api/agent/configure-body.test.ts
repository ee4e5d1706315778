import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { filesDigest } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import { MAX_CONFIGURE_BODY_BYTES, readConfigureBody } from './configure-body.ts';

/** The body as a stream cut into pieces at the given byte offsets. */
function streamOf(bytes: Buffer, cuts: number[]): ReadableStream<Uint8Array> {
  const offsets = [0, ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length];
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i + 1 >= offsets.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offsets[i], offsets[i + 1])));
      i++;
    },
  });
}

async function read(body: string | Buffer, cuts: number[] = []) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const spooled = await readConfigureBody(streamOf(bytes, cuts), bytes.length);
  const chunks: Buffer[] = [];
  for await (const c of spooled.contents()) chunks.push(c as Buffer);
  await spooled.close();
  return { spooled, contents: Buffer.concat(chunks) };
}

async function refusal(body: string, declared = Buffer.byteLength(body)): Promise<HttpError> {
  const err = await readConfigureBody(streamOf(Buffer.from(body), []), declared).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

// Strings that exercise every escape, multi-byte UTF-8, surrogate pairs (raw and escaped)
// and a lone surrogate (which JSON.parse keeps and UTF-8 encodes as U+FFFD).
const CONTENTS = [
  '',
  'plain ascii',
  'quotes " and \\ backslashes / slashes \b\f\n\r\t and \u0001 controls',
  'ünïcödé — 日本語 — 😀 emoji 𝄞',
  '\ud83d\ude00 escaped pair',
  'lone \ud800 surrogate',
  '\ud83d',
  'x'.repeat(70_000),
];

describe('readConfigureBody', () => {
  test('decodes every file exactly as JSON.parse does, however the body is cut', async () => {
    const request = {
      entrypoint: ['sh', '/workspace/run.sh'],
      files: CONTENTS.map((content, i) => ({ content, path: `/workspace/f${i}` })),
      installCommand: ['make', 'ünï'],
    };
    // JSON.stringify leaves non-ASCII raw; this variant escapes all of it.
    const raw = JSON.stringify(request);
    const escaped = raw.replace(
      /[\u007f-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    const want = Buffer.concat(CONTENTS.map((c) => Buffer.from(c, 'utf8')));
    for (const body of [raw, escaped, ` \n${raw}\n `]) {
      const bytes = Buffer.from(body);
      const cutSets = [
        [],
        [1],
        Array.from({ length: Math.min(bytes.length, 2000) }, (_, i) => i),
        Array.from({ length: 40 }, () => Math.floor(Math.random() * bytes.length)),
      ];
      for (const cuts of cutSets) {
        const { spooled, contents } = await read(bytes, cuts);
        expect(contents.equals(want)).toBe(true);
        expect(spooled.files.map((f) => f.path)).toEqual(request.files.map((f) => f.path));
        expect(spooled.files.map((f) => f.size)).toEqual(CONTENTS.map((c) => Buffer.byteLength(c)));
        expect(spooled.files.map((f) => f.sha256)).toEqual(
          CONTENTS.map((c) => createHash('sha256').update(c).digest('hex')),
        );
        expect(spooled.digest).toBe(filesDigest(request.files));
        expect(spooled.entrypoint).toEqual(request.entrypoint);
        expect(spooled.installCommand).toEqual(request.installCommand);
      }
    }
  });

  test('path after content, no files, random binary-ish content', async () => {
    const content = randomBytes(5000).toString('latin1');
    const { spooled, contents } = await read(
      JSON.stringify({ files: [{ content, path: '/workspace/bin' }], entrypoint: ['x'] }),
      [7, 100, 4000],
    );
    expect(contents.equals(Buffer.from(content, 'utf8'))).toBe(true);
    expect(spooled.files).toEqual([expect.objectContaining({ path: '/workspace/bin' })]);
    const none = await read('{"entrypoint":["x"]}');
    expect(none.spooled.files).toEqual([]);
    expect(none.contents.length).toBe(0);
  });

  test('invalid JSON, schema errors and unknown keys are 400', async () => {
    for (const body of [
      '',
      '{',
      '{"entrypoint":["x"]',
      '{"entrypoint":["x"]} x',
      '{"entrypoint":["x"],}',
      '{"files":[{"path":"/a","content":"bad \\q escape"}],"entrypoint":["x"]}',
      '{"files":[{"path":"/a","content":"raw \u0001 control"}],"entrypoint":["x"]}',
      '{"files":[{"path":"/a","content":"never ends',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]',
    ]) {
      const err = await refusal(body);
      expect(err.status, body).toBe(400);
      expect(err.code, body).toBe('bad_request');
    }
    for (const body of [
      '{"entrypoint":[]}',
      '{"entrypoint":["x"],"argv":[]}',
      '{"files":[{"path":"rel","content":""}],"entrypoint":["x"]}',
      '{"files":[{"path":"/a","content":1}],"entrypoint":["x"]}',
      '{"files":[{"path":"/a","content":"","mode":1}],"entrypoint":["x"]}',
    ]) {
      const err = await refusal(body);
      expect(err.status, body).toBe(400);
      expect(err.code, body).toBe('invalid_request');
    }
  });

  test('the limits refuse while reading: 403 policy_violation with the one code', async () => {
    const codeOf = async (body: string) => {
      const err = await refusal(body);
      expect(err.status).toBe(403);
      return (err.body().violations as { code: string }[]).map((v) => v.code);
    };
    const many = Array.from({ length: 201 }, (_, i) => ({ path: `/w/${i}`, content: 'x' }));
    expect(await codeOf(JSON.stringify({ files: many, entrypoint: ['x'] }))).toEqual([
      'configure_too_many_files',
    ]);
    const big = 'x'.repeat(32 * 1024 * 1024 + 1);
    expect(await codeOf(`{"entrypoint":["x"],"files":[{"path":"/w/big","content":"${big}"}]}`)).toEqual([
      'configure_file_too_large',
    ]);
    const part = 'y'.repeat(32 * 1024 * 1024);
    const files = [0, 1, 2, 3].map((i) => `{"path":"/w/${i}","content":"${part}"}`);
    expect(
      await codeOf(`{"entrypoint":["x"],"files":[${files.join(',')},{"path":"/w/4","content":"z"}]}`),
    ).toEqual(['configure_request_too_large']);
  });

  test('413 for a body larger than any configure, declared or streamed, and for huge non-content', async () => {
    expect((await refusal('{}', MAX_CONFIGURE_BODY_BYTES + 1)).status).toBe(413);
    const huge = `{"entrypoint":["${'a'.repeat(1024 * 1024 + 10)}"]}`;
    const err = await refusal(huge);
    expect(err.status).toBe(413);
    expect(err.code).toBe('payload_too_large');
  });
});
