// sbx's commands, flags and help, declared with commander. Each command's code is imported
// only when it runs, so `sbx --version` and `sbx --help` load nothing but this file.
import { Argument, Command, CommanderError, Option } from 'commander';
import { describeError, ExitCode } from './errors.ts';
import { useColour, paint } from './output.ts';
import type { GlobalOptions } from './session.ts';

/** What a command's code receives: its operands, its options, and the global options. */
export interface Invocation<O = Record<string, unknown>> {
  args: string[];
  variadic: string[];
  opts: O;
  globals: GlobalOptions;
}

type Handler = (inv: Invocation<never>) => Promise<number | void>;

/** An action that imports its module when it runs and maps what it returns to the exit code. */
function lazy(load: () => Promise<Handler>) {
  return async function (this: Command, ...params: unknown[]): Promise<void> {
    // commander passes the operands, then the options object, then the command.
    const operands = params.slice(0, -2);
    const args: string[] = [];
    let variadic: string[] = [];
    for (const o of operands) {
      if (Array.isArray(o)) variadic = o as string[];
      else if (typeof o === 'string') args.push(o);
    }
    const globals = this.optsWithGlobals<GlobalOptions>();
    const handler = await load();
    const code = await handler({
      args,
      variadic,
      opts: this.opts<never>(),
      globals: { context: globals.context, namespace: globals.namespace },
    });
    process.exitCode = code ?? ExitCode.ok;
  };
}

const output = () =>
  new Option('-o, --output <format>', 'json, yaml, wide or name (default: a table)').choices([
    'json',
    'yaml',
    'wide',
    'name',
  ]);

/** `--help`'s examples, after the options. */
const examples = (cmd: Command, lines: string[]) =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);

export function program(version: string): Command {
  const sbx = new Command('sbx')
    .description('The command line of svc: sandboxes on Kubernetes, by hand.')
    .version(version, '-v, --version', 'print the version')
    .option('--context <name>', 'the context to use instead of the current one')
    .option('-n, --namespace <namespace>', 'the namespace (default: the context’s, else the API’s)')
    // Thrown rather than exiting, in every subcommand too (they copy it when added), so
    // usage errors end with exit code 2.
    .exitOverride()
    .showHelpAfterError('(sbx --help lists the commands; sbx COMMAND --help explains one)')
    .configureOutput({ outputError: (str, write) => write(paint(useColour(process.stderr)).red(str)) });
  sbx.addHelpText(
    'after',
    `
Configuration: ~/.config/sbx/config.yaml ($XDG_CONFIG_HOME/sbx), written by sbx login;
SVC_BASE_URL, SVC_API_KEY and SVC_NAMESPACE override the current context.
Exit codes: 0 ok, 1 error, 2 usage, 4 not signed in or key refused, 130 interrupted;
exec, shell and invoke exit with the remote command's code.

Examples:
  sbx login http://127.0.0.1:8080 --api-key svc_…
  sbx create dev --wait && sbx shell dev
  sbx exec dev -- ls -la /workspace
  sbx cp ./src dev:/workspace/src
`,
  );

  // Signing in and contexts
  examples(
    sbx
      .command('login')
      .description('sign in to an API and save it as a context (the current one)')
      .argument('[url]', 'the API, such as http://127.0.0.1:8080 (default: SVC_BASE_URL)')
      .option('--api-key <key>', 'the API key (default: SVC_API_KEY, else read from stdin)')
      .option('--name <context>', 'the context’s name (default: the URL’s host)')
      .option('--context-namespace <namespace>', 'the namespace the context uses by default')
      .action(lazy(async () => (await import('./commands/auth.ts')).login)),
    [
      'sbx login http://127.0.0.1:8080 --api-key "$SVC_ALICE_KEY"',
      'echo "$KEY" | sbx login https://svc.example.com --name prod',
    ],
  );
  examples(
    sbx
      .command('whoami')
      .description('who the API says you are')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/auth.ts')).whoami)),
    ['sbx whoami', 'sbx whoami -o json'],
  );
  const context = sbx.command('context').description('list, switch and delete contexts');
  examples(
    context
      .command('ls')
      .alias('list')
      .description('list the contexts; * marks the current one')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/auth.ts')).contextList)),
    ['sbx context ls'],
  );
  examples(
    context
      .command('use')
      .description('make a context the current one')
      .argument('<name>')
      .action(lazy(async () => (await import('./commands/auth.ts')).contextUse)),
    ['sbx context use prod'],
  );
  examples(
    context
      .command('rm')
      .description('delete a context')
      .argument('<name>')
      .action(lazy(async () => (await import('./commands/auth.ts')).contextRemove)),
    ['sbx context rm old'],
  );

  // Sandboxes
  examples(
    sbx
      .command('templates')
      .description('the templates you may create sandboxes from')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).templates)),
    ['sbx templates', 'sbx templates -o yaml'],
  );
  examples(
    sbx
      .command('create')
      .description('create a sandbox')
      .argument('<name>')
      .option('-t, --template <name>', 'the template', 'default')
      .addOption(new Option('--mode <mode>', 'code or agent').choices(['code', 'agent']))
      .option('--timeout <duration>', 'lifetime from its start, such as 8h (0: none)')
      .option('--idle-timeout <duration>', 'stop after this long without use, such as 30m')
      .option('--image <repository>', 'another image than the template’s')
      .option('-w, --wait', 'wait until it is Running (a spinner shows the phase)')
      .option('--wait-timeout <seconds>', 'how long --wait waits', '300')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).create)),
    ['sbx create dev --wait', 'sbx create bot --mode agent --template minimal --timeout 2h --wait'],
  );
  examples(
    sbx
      .command('ls')
      .alias('list')
      .description('list sandboxes')
      .addOption(new Option('--mode <mode>', 'only this mode').choices(['code', 'agent']))
      .option('--phase <phase>', 'only this phase (Pending, Creating, Running, Stopped, Error)')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).list)),
    ['sbx ls', 'sbx ls -o wide --phase Running', 'sbx ls -n team-a -o json'],
  );
  examples(
    sbx
      .command('get')
      .description('show a sandbox')
      .argument('<name>')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).get)),
    ['sbx get dev', 'sbx get dev -o yaml'],
  );
  examples(
    sbx
      .command('rm')
      .alias('delete')
      .description('delete sandboxes (and their workspaces)')
      .argument('<names...>')
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).remove)),
    ['sbx rm dev', 'sbx rm a b c'],
  );
  for (const [verb, what] of [
    ['stop', 'stop a sandbox (its workspace is kept)'],
    ['resume', 'start a stopped sandbox again'],
  ] as const) {
    examples(
      sbx
        .command(verb)
        .description(what)
        .argument('<name>')
        .option('-w, --wait', verb === 'stop' ? 'wait until it is Stopped' : 'wait until it is Running')
        .option('--wait-timeout <seconds>', 'how long --wait waits', '300')
        .action(lazy(async () => (await import('./commands/sandboxes.ts'))[verb])),
      [`sbx ${verb} dev`, `sbx ${verb} dev --wait`],
    );
  }
  examples(
    sbx
      .command('clone')
      .description('a new sandbox from a snapshot of another one’s workspace')
      .argument('<source>')
      .argument('[name]', 'the new sandbox’s name (default: the API picks one)')
      .option('-w, --wait', 'wait until the clone is Running')
      .option('--wait-timeout <seconds>', 'how long --wait waits', '300')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).clone)),
    ['sbx clone dev dev-2 --wait'],
  );

  // Working in a sandbox
  examples(
    sbx
      .command('exec')
      .description('run a command in a sandbox; its output streams, its exit code is sbx’s')
      .argument('<name>')
      .argument('<command...>', 'the program and its arguments, after --')
      .option('-w, --workdir <dir>', 'the working directory (default /workspace)')
      .option('-e, --env <KEY=VALUE...>', 'environment variables')
      .option('--timeout <duration>', 'end it after this long, such as 30s')
      .option('-d, --detach', 'print its id and return at once; it runs on (needs --timeout)')
      .action(lazy(async () => (await import('./commands/exec.ts')).exec)),
    [
      'sbx exec dev -- ls -la',
      "sbx exec dev -- sh -c 'exit 3'; echo $?   # 3",
      'cat data.csv | sbx exec dev -- wc -l',
      'sbx exec dev --detach --timeout 1h -- make test   # then: sbx attach dev ID',
    ],
  );
  examples(
    sbx
      .command('shell')
      .description('an interactive shell in a sandbox (a real terminal; resizes follow yours)')
      .argument('<name>')
      .option('-c, --command <program>', 'run this instead of the default shell')
      .action(lazy(async () => (await import('./commands/shell.ts')).shell)),
    ['sbx shell dev', 'sbx shell dev -c htop'],
  );
  examples(
    sbx
      .command('cp')
      .description('copy files and folders between here and a sandbox (NAME:/workspace/…)')
      .argument('<source>')
      .argument('<destination>')
      .option('--no-progress', 'no progress bar')
      .action(lazy(async () => (await import('./commands/cp.ts')).cp)),
    [
      'sbx cp ./src dev:/workspace/src          # a folder, through a tar.gz',
      'sbx cp dev:/workspace/out.csv .          # into the current folder',
      'sbx cp dev:/workspace/src ./src-copy',
    ],
  );
  examples(
    sbx
      .command('logs')
      .description('the template process’s recent output')
      .argument('<name>')
      .option('-f, --follow', 'keep streaming new output')
      .action(lazy(async () => (await import('./commands/exec.ts')).logs)),
    ['sbx logs dev', 'sbx logs dev -f'],
  );

  // Agent mode
  examples(
    sbx
      .command('configure')
      .description('write files, run the install once and set the entrypoint of an agent sandbox')
      .argument('<name>')
      .argument('[entrypoint...]', 'the entrypoint argv, after --')
      .option('-f, --file <local:remote...>', 'a local file or folder and where it goes under /workspace')
      .option('--install <command>', 'the install command (run with sh -c); its output streams')
      .option('--entrypoint <command>', 'the entrypoint as one shell command (instead of after --)')
      .action(lazy(async () => (await import('./commands/agent.ts')).configure)),
    [
      'sbx configure bot -f agent.py:/workspace/agent.py --install "pip install requests" -- python3 /workspace/agent.py',
      'sbx configure bot -f agent.py:/workspace/agent.py --install -- pip install requests --entrypoint -- python3 /workspace/agent.py',
      "sbx configure bot -f ./src:/workspace/src --entrypoint 'node /workspace/src/main.js'",
    ],
  );
  examples(
    sbx
      .command('invoke')
      .description('run the entrypoint with stdin as its input; Ctrl-C cancels it')
      .argument('<name>')
      .option('--timeout <duration>', 'cap this invoke, such as 30s')
      .option('--show-id', 'print the invoke id on stderr (always on a terminal)')
      .option('-d, --detach', 'print the invoke id and return at once; the run goes on')
      .action(lazy(async () => (await import('./commands/agent.ts')).invoke)),
    [
      'echo hello | sbx invoke bot',
      'sbx invoke bot < input.json > output.json',
      'sbx invoke bot --detach < task.json   # then: sbx attach bot ID',
    ],
  );
  examples(
    sbx
      .command('runs')
      .description('a sandbox’s invokes and execs: running, and ended ones kept 15 minutes')
      .argument('<name>')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/runs.ts')).runs)),
    ['sbx runs bot', 'sbx runs bot -o json'],
  );
  examples(
    sbx
      .command('attach')
      .description('a run’s output from its start, then as it comes; Ctrl-C detaches (the run goes on)')
      .argument('<name>')
      .argument('<invoke-id>')
      .option('--last-event-id <id>', 'only the events after this one')
      .option('--cancel-on-interrupt', 'Ctrl-C cancels the run instead of detaching')
      .action(lazy(async () => (await import('./commands/runs.ts')).attach)),
    ['sbx attach bot inv-3f2a…', 'sbx attach bot inv-3f2a… --cancel-on-interrupt'],
  );
  examples(
    sbx
      .command('cancel')
      .description('cancel a running invoke')
      .argument('<name>')
      .argument('<invoke-id>')
      .action(lazy(async () => (await import('./commands/agent.ts')).cancel)),
    ['sbx cancel bot 3f2a9c'],
  );

  // Ports
  examples(
    sbx
      .command('port-forward')
      .description('serve a sandbox port on 127.0.0.1 (HTTP and WebSocket, through the preview path)')
      .argument('<name>')
      .argument('<port>', 'the port in the sandbox')
      .option('-l, --local <port>', 'the local port (default: the same; 0 picks a free one)')
      .action(lazy(async () => (await import('./commands/port-forward.ts')).portForward)),
    ['sbx port-forward dev 3000', 'sbx port-forward dev 8000 --local 9000'],
  );
  examples(
    sbx
      .command('ports')
      .description('the forwarded ports of a sandbox')
      .argument('<name>')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/sandboxes.ts')).ports)),
    ['sbx ports dev'],
  );
  examples(
    sbx
      .command('mcp')
      .description('serve svc’s MCP server over stdio, for a local MCP client (docs/mcp.md)')
      .action(lazy(async () => (await import('./commands/mcp.ts')).mcp)),
    ['sbx mcp', 'sbx --context prod mcp'],
  );

  // Admin
  const policy = sbx.command('policy').description('governance policies (admins), YAML in and out');
  examples(
    policy
      .command('get')
      .description('print the policies (cluster and every namespace), or one namespace’s with -n')
      .option('--effective', 'the policy in force in the namespace (cluster and namespace merged)')
      .addOption(
        new Option('-o, --output <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml'),
      )
      .action(lazy(async () => (await import('./commands/admin.ts')).policyGet)),
    ['sbx policy get', 'sbx policy get -n team-a', 'sbx policy get -n team-a --effective'],
  );
  examples(
    policy
      .command('set')
      .description('replace the cluster policy, or a namespace’s with -n, from YAML')
      .requiredOption('-f, --file <path>', 'the policy as YAML (or JSON); - reads stdin')
      .action(lazy(async () => (await import('./commands/admin.ts')).policySet)),
    [
      'sbx policy get > p.yaml && $EDITOR p.yaml && sbx policy set -f p.yaml',
      'echo "maxSandboxesPerUser: 3" | sbx policy set -n team-a -f -',
    ],
  );
  examples(
    sbx
      .command('audit')
      .description('the audit trail (admins): who did what to which sandbox')
      .option('--sandbox <name>', 'only this sandbox’s events')
      .option('--since <time>', 'only since then: an RFC 3339 time or a duration such as 1h')
      .option('--reason <reason>', 'only this reason, such as SandboxCreated')
      .option('--limit <n>', 'at most this many')
      .addOption(output())
      .action(lazy(async () => (await import('./commands/admin.ts')).audit)),
    ['sbx audit --since 1h', 'sbx audit --sandbox dev -o json'],
  );

  examples(
    sbx
      .command('completion')
      .description('a shell completion script: source <(sbx completion bash)')
      .addArgument(new Argument('<shell>').choices(['bash', 'zsh']))
      .action(async function (this: Command, shell: string) {
        const { completionScript } = await import('./completion.ts');
        process.stdout.write(completionScript(shell as 'bash' | 'zsh', sbx));
      }),
    ['source <(sbx completion bash)', 'sbx completion zsh > "${fpath[1]}/_sbx"'],
  );
  return sbx;
}

/**
 * `sbx configure NAME … --install -- CMD… --entrypoint -- CMD…`: each command given as argv
 * after its own `--`, as the issue's shape and `docker run` habits have it. commander reads
 * one `--` only, so this form is rewritten first into the one it parses: the install argv
 * quoted into one shell command (run with `sh -c`, it gives back the same argv) and the
 * entrypoint argv after the final `--`. Other argument lists are returned as they are.
 */
export function configureArgv(argv: string[]): string[] {
  const at = argv.indexOf('configure');
  if (at < 0 || argv.slice(0, at).includes('--')) return argv;
  const out: string[] = [];
  const entrypoint: string[] = [];
  let i = 0;
  // A command after its `--` runs to the other flag of the pair, or to the end.
  const upTo = (from: number, flag: string) => {
    let j = from;
    while (j < argv.length && argv[j] !== flag) j++;
    return j;
  };
  while (i < argv.length) {
    const word = argv[i]!;
    if (i > at && word === '--install' && argv[i + 1] === '--') {
      const stop = upTo(i + 2, '--entrypoint');
      out.push(
        '--install',
        argv
          .slice(i + 2, stop)
          .map(shellQuote)
          .join(' '),
      );
      i = stop;
    } else if (i > at && word === '--entrypoint' && argv[i + 1] === '--') {
      const stop = upTo(i + 2, '--install');
      entrypoint.push(...argv.slice(i + 2, stop));
      i = stop;
    } else {
      out.push(word);
      i++;
    }
  }
  return entrypoint.length > 0 ? [...out, '--', ...entrypoint] : out;
}

const shellQuote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** Runs sbx with `argv` (the user's arguments); resolves with the exit code. */
export async function run(argv: string[], version: string): Promise<number> {
  const sbx = program(version);
  try {
    await sbx.parseAsync(configureArgv(argv), { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with code 0; commander printed what it had to.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const { line, exitCode } = describeError(err);
    process.stderr.write(`${paint(useColour(process.stderr)).red('error:')} ${line}\n`);
    return exitCode;
  }
}
