// The Node options `svc api` runs with, wherever it is started: the Helm chart sets them as
// the API container's NODE_OPTIONS (test/deploy/render.test.ts holds the two together),
// `make dev` and the benches pass them to node.
//
// Why a small young generation: the API relays run output and file transfers, and every
// 64 KiB read from a socket is a new buffer outside V8's heap. With the default young
// generation (up to 16 MiB a semi-space) a relay's small JavaScript garbage fills it so
// slowly that no scavenge runs during a stream; the buffers pile up until V8's
// external-memory limit starts a full mark-compact of the whole heap, every 64 MiB relayed.
// With 1 MiB, scavenges run often enough to free them young. Measured in the same runs
// (bench/README.md, bench-invoke): the invoke stream 0.51–0.55 → 0.70–0.76 of a plain pipe,
// the API's peak resident memory 338 → 201 MB, `GET /sandboxes/{id}` unchanged.
export const API_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=1'];

/** The Node options (before the script) of the `svc` component `name`. */
export const nodeOptionsOf = (name: string): readonly string[] => (name === 'api' ? API_NODE_OPTIONS : []);
