// The one door of sandboxd: the in-sandbox daemon for files, install runs, invokes and exec.
export { createSandboxd } from './server.ts';
export type { SandboxdOptions } from './server.ts';
export { startTemplateProcess, stopProcess } from './supervisor.ts';
export { resolveInside, PathRefused } from './paths.ts';
