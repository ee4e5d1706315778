// sbx, the command line of svc: `run` parses arguments and runs one command (cli/sbx.ts is
// the executable; docs/cli.md the manual).
export { run, program } from './main.ts';
export type { Invocation } from './main.ts';
export { ExitCode, CliError, describeError } from './errors.ts';
export { configPath, readConfig, writeConfig, resolveTarget } from './config.ts';
export type { Config, Context, Target } from './config.ts';
