import { describe, expect, test } from 'vitest';
import { ConfigureRequest, filesDigest, installCommandHash, installRunId } from './configure.ts';

describe('installCommandHash', () => {
  const files = [
    { path: '/workspace/a', content: 'one' },
    { path: '/workspace/b', content: 'two' },
  ];
  test('the same files in any order and the same install command hash alike', () => {
    const a = installCommandHash(['make'], filesDigest(files));
    const b = installCommandHash(['make'], filesDigest([...files].reverse()));
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test('a changed file, path or install command changes it', () => {
    const base = installCommandHash(['make'], filesDigest(files));
    expect(installCommandHash(['make', 'all'], filesDigest(files))).not.toBe(base);
    expect(installCommandHash(undefined, filesDigest(files))).not.toBe(base);
    expect(
      installCommandHash(['make'], filesDigest([files[0]!, { path: '/workspace/b', content: 'three' }])),
    ).not.toBe(base);
    expect(
      installCommandHash(['make'], filesDigest([files[0]!, { path: '/workspace/c', content: 'two' }])),
    ).not.toBe(base);
  });

  test('install run ids are valid sandboxd run ids', () => {
    expect(installRunId(installCommandHash(['x'], filesDigest([])))).toMatch(/^install-[0-9a-f]{32}$/);
  });
});

describe('ConfigureRequest', () => {
  test('needs an entrypoint and absolute paths, and refuses unknown fields', () => {
    expect(ConfigureRequest.safeParse({ entrypoint: ['run'] }).success).toBe(true);
    expect(ConfigureRequest.safeParse({ files: [] }).success).toBe(false);
    expect(ConfigureRequest.safeParse({ entrypoint: [] }).success).toBe(false);
    expect(
      ConfigureRequest.safeParse({ entrypoint: ['x'], files: [{ path: 'rel', content: '' }] }).success,
    ).toBe(false);
    expect(ConfigureRequest.safeParse({ entrypoint: ['x'], argv: [] }).success).toBe(false);
  });
});
