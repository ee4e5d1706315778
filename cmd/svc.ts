#!/usr/bin/env node
// The `svc` entry point: one binary, one subcommand per component. Components are wired
// together only here; each subcommand module parses its own configuration with zod.

const commands: Record<string, () => Promise<{ main: (argv: string[]) => Promise<number> }>> = {
  generate: () => import('./generate.ts'),
  api: () => import('./api.ts'),
  webhook: () => import('./webhook.ts'),
  operator: () => import('./operator.ts'),
  devnode: () => import('./devnode.ts'),
  egress: () => import('./egress.ts'),
};

const FILE_ERRORS = new Set(['ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR', 'EPERM']);

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const load = name === undefined ? undefined : commands[name];
  if (load === undefined) {
    process.stderr.write(`usage: svc <${Object.keys(commands).join('|')}> [flags]\n`);
    return 2;
  }
  const command = await load();
  try {
    return await command.main(rest);
  } catch (err) {
    // A mistyped flag is the caller's mistake: say so in one line, not with a stack.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`svc ${name}: ${(err as Error).message}\n`);
      return 2;
    }
    // A file named in the configuration that cannot be read (a kubeconfig, a TLS key): the
    // operator's to fix, so one line naming it, not a stack.
    const path = (err as { path?: unknown }).path;
    if (typeof code === 'string' && typeof path === 'string' && FILE_ERRORS.has(code)) {
      process.stderr.write(`svc ${name}: cannot read ${path}: ${code}\n`);
      return 1;
    }
    throw err;
  }
}

process.exitCode = await run(process.argv.slice(2));
