// hack/image/dockerfile.sh: the one reading of the Dockerfile's runtime stage that both
// `make image-check` (hack/image/check.sh) and `make images` (hack/cluster/images.sh) use, so
// the image they rebuild without Docker is the one `docker build` makes. It must read the real
// Dockerfile as it is, and refuse what neither script reproduces rather than skip it.
import { execFile, type ExecFileException } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-dockerfile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sources the parser, reads ROOT's Dockerfile with VERSION, prints what it set. */
function read(from: string, version: string) {
  const print = `. "${root}/hack/image/dockerfile.sh"
dockerfile_read "$0" "$1"
printf 'from=%s\\nversion=%s\\nworkdir=%s\\nuser=%s uid=%s gid=%s\\nhome=%s\\nentrypoint=%s\\n' \\
  "$df_from" "$df_version" "$df_workdir" "$df_user" "$df_uid" "$df_gid" "$df_home" "$df_entrypoint"
printf 'copy=%s\\n' "\${df_copies[@]}"
printf 'env=%s\\n' "\${df_env[@]}"
printf 'label=%s\\n' "\${df_labels[@]}"
echo "source=$(dockerfile_source build /app/ /BUILD) $(dockerfile_source sandboxd /src/dist/sandboxd /BUILD)"`;
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      'bash',
      ['-c', print, from, version],
      { timeout: 30_000, encoding: 'utf8' },
      (err: ExecFileException | null, stdout: string, stderr: string) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('hack/image/dockerfile.sh', () => {
  test("reads the Dockerfile's runtime stage: base, copies, environment, user, entry point, labels", async () => {
    const got = await read(root, '9.9.9');
    expect(got.stderr).toBe('');
    expect(got.code).toBe(0);
    expect(got.stdout.split('\n')).toEqual([
      'from=node:24-bookworm-slim',
      'version=9.9.9',
      'workdir=/app',
      'user=65532:65532 uid=65532 gid=65532',
      'home=/tmp',
      'entrypoint=["node", "/app/cmd/svc.ts"]',
      'copy=build /app/ /app/',
      'copy=sandboxd /src/dist/sandboxd /usr/local/bin/sandboxd',
      'copy=sandboxd /src/dist/sandboxd-csi /usr/local/bin/sandboxd-csi',
      'env=HOME=/tmp',
      'label=org.opencontainers.image.title=svc',
      'label=org.opencontainers.image.description=Kubernetes-native sandbox orchestration: the operator, the admission webhook, the HTTP API and sandboxd',
      'label=org.opencontainers.image.source=https://github.com/svc-dev/svc',
      'label=org.opencontainers.image.url=https://github.com/svc-dev/svc',
      'label=org.opencontainers.image.licenses=Apache-2.0',
      'label=org.opencontainers.image.version=9.9.9',
      `source=/BUILD/app/ ${root}/dist/sandboxd`,
      '',
    ]);
    // Without a version: the ARG's default, which check.sh compares with package.json's.
    expect((await read(root, '')).stdout).toContain('\nversion=0.1.0\n');
  });

  test('refuses an instruction in the runtime stage that the scripts do not reproduce', async () => {
    const dockerfile = await readFile(join(root, 'Dockerfile'), 'utf8');
    await writeFile(join(dir, 'Dockerfile'), `${dockerfile}RUN apt-get install -y git\n`);
    expect(await read(dir, '')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "dockerfile: the runtime stage's RUN is not reproduced without Docker (hack/image/dockerfile.sh): RUN apt-get install -y git\n",
    });
    await writeFile(join(dir, 'Dockerfile'), dockerfile.replace('USER 65532:65532', 'USER nobody'));
    expect(await read(dir, '')).toMatchObject({
      code: 1,
      stderr: "dockerfile: USER must be numeric uid:gid, found 'nobody'\n",
    });
  });
});
