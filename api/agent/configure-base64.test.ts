import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { HttpError } from '../errors/index.ts';
import { readConfigureBody } from './configure-body.ts';

/** The body as a stream cut into pieces of `every` bytes. */
function streamOf(bytes: Buffer, every: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + every)));
      at += every;
    },
  });
}

async function read(body: object, every: number) {
  const bytes = Buffer.from(JSON.stringify(body));
  const spooled = await readConfigureBody(streamOf(bytes, every), bytes.length);
  const chunks: Buffer[] = [];
  for await (const c of spooled.contents()) chunks.push(c as Buffer);
  await spooled.close();
  return { spooled, contents: Buffer.concat(chunks) };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('configure files[].contentBase64', () => {
  // Every length mod 3 (padding of 0, 1 and 2), cut at every piece size up to a few groups.
  const binaries = [Buffer.alloc(0), randomBytes(1), randomBytes(2), randomBytes(3), randomBytes(70_001)];
  test.each([1, 2, 3, 5, 7, 4096])(
    'decodes binary files exactly, the body cut every %i bytes',
    async (every) => {
      const body = {
        entrypoint: ['true'],
        files: [
          ...binaries.map((b, i) => ({ path: `/workspace/b${i}`, contentBase64: b.toString('base64') })),
          {
            path: '/workspace/unpadded',
            contentBase64: Buffer.from('ab').toString('base64').replace(/=+$/, ''),
          },
          { path: '/workspace/text', content: 'plain' },
        ],
      };
      const { spooled, contents } = await read(body, every);
      const want = [...binaries, Buffer.from('ab'), Buffer.from('plain')];
      expect(spooled.files.map((f) => [f.path, f.size, f.sha256])).toEqual(
        body.files.map((f, i) => [f.path, want[i]!.length, sha256(want[i]!)]),
      );
      expect(contents.equals(Buffer.concat(want))).toBe(true);
    },
  );

  test.each([
    ['not base64', { contentBase64: 'ab$d' }, 'files[0].contentBase64 is not base64'],
    ['a length base64 never has', { contentBase64: 'abcde' }, 'files[0].contentBase64 is not base64'],
    ['both', { content: 'x', contentBase64: 'eA==' }, 'give one content'],
    ['neither', {}, 'give exactly one of content and contentBase64'],
  ])('refuses %s with a 400', async (_, file, message) => {
    const body = Buffer.from(
      JSON.stringify({ entrypoint: ['true'], files: [{ path: '/workspace/x', ...file }] }),
    );
    const err = await readConfigureBody(streamOf(body, 3), body.length).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    expect((err as HttpError).message).toContain(message);
  });
});
