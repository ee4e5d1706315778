#!/usr/bin/env node
// sbx: the command line of svc (docs/cli.md). `sbx --version` is answered before anything
// else is loaded; every other run imports the command tree, and each command its own code.
import pkg from '../package.json' with { type: 'json' };

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${pkg.version}\n`);
} else {
  import('./main.ts')
    .then(({ run }) => run(argv, pkg.version))
    // Exits at once: an idle keep-alive connection must not hold the prompt back. Writes to
    // pipes and files are synchronous on Linux, so nothing printed is lost.
    .then((code) => process.exit(code))
    .catch((err: unknown) => {
      process.stderr.write(`sbx: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
