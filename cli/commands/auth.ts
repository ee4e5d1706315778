// login, whoami and contexts.
import { stdin } from 'node:process';
import type { SvcClient } from '../../clients/typescript/index.ts';
import { configPath, readConfig, writeConfig, type Context } from '../config.ts';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { parseFormat, printAs } from '../output.ts';
import { openSession } from '../session.ts';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function login(
  inv: Invocation<{ apiKey?: string; name?: string; contextNamespace?: string }>,
): Promise<number> {
  const url = inv.args[0] ?? process.env.SVC_BASE_URL;
  if (!url) throw new CliError('give the API’s URL: sbx login http://127.0.0.1:8080', ExitCode.usage);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`not a URL: "${url}"`, ExitCode.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`the API’s URL must be http or https, not ${parsed.protocol}`, ExitCode.usage);
  }
  let apiKey = inv.opts.apiKey ?? process.env.SVC_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    if (stdin.isTTY) {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: stdin, output: process.stderr });
      apiKey = await rl.question('API key: ');
      rl.close();
    } else apiKey = await readAll(stdin);
    apiKey = apiKey.trim();
  }
  if (apiKey === '')
    throw new CliError('no API key: give --api-key, SVC_API_KEY or one on stdin', ExitCode.usage);
  const server = parsed
    .toString()
    .replace(/\/+$/, '')
    .replace(/\/api\/v1$/, '');
  const name = inv.opts.name ?? parsed.host;
  const ctx: Context = {
    name,
    server,
    apiKey,
    ...(inv.opts.contextNamespace ? { namespace: inv.opts.contextNamespace } : {}),
  };

  // The key is checked before it is saved: a typo fails here, not at the next command.
  const { SvcClient } = await import('../../clients/typescript/index.ts');
  const client = new SvcClient({ baseUrl: server, apiKey });
  const who = await whoIs(client);

  const path = configPath();
  const config = await readConfig(path);
  config.contexts = [...config.contexts.filter((c) => c.name !== name), ctx];
  config.currentContext = name;
  await writeConfig(path, config);
  process.stderr.write(
    `signed in to ${server} as ${who}; context "${name}" saved in ${path} and made current\n`,
  );
  return ExitCode.ok;
}

/** The caller's name from /user/me, or, on an older API without it, the key checked by a list. */
async function whoIs(client: SvcClient): Promise<string> {
  try {
    const me = await client.getCurrentUser();
    return `${me.name ?? me.sub}${me.isAdmin ? ' (admin)' : ''}`;
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
    await client.listSandboxes({ limit: 1 });
    return 'the key’s user';
  }
}

export async function whoami(inv: Invocation<{ output?: string }>): Promise<number> {
  const { client, target } = await openSession(inv.globals);
  const me = await client.getCurrentUser();
  await printAs(parseFormat(inv.opts.output), me, () => ({
    headers: ['name', 'admin', 'groups', 'context', 'server'],
    rows: [
      [
        me.name ?? me.sub,
        me.isAdmin ? 'yes' : 'no',
        (me.groups ?? []).join(',') || '<none>',
        target.context ?? '<environment>',
        target.server,
      ],
    ],
  }));
  return ExitCode.ok;
}

export async function contextList(inv: Invocation<{ output?: string }>): Promise<number> {
  const config = await readConfig(configPath());
  // Keys are never printed, in any format.
  const safe = config.contexts.map(({ apiKey: _key, ...rest }) => rest);
  await printAs(
    parseFormat(inv.opts.output),
    { currentContext: config.currentContext ?? null, contexts: safe },
    () => ({
      headers: ['current', 'name', 'server', 'namespace'],
      rows: config.contexts.map((c) => [
        c.name === config.currentContext ? '*' : '',
        c.name,
        c.server,
        c.namespace ?? '',
      ]),
    }),
  );
  return ExitCode.ok;
}

export async function contextUse(inv: Invocation): Promise<number> {
  const path = configPath();
  const config = await readConfig(path);
  const name = inv.args[0]!;
  if (!config.contexts.some((c) => c.name === name)) {
    throw new CliError(`no context named "${name}" (sbx context ls lists them)`);
  }
  config.currentContext = name;
  await writeConfig(path, config);
  process.stderr.write(`switched to context "${name}"\n`);
  return ExitCode.ok;
}

export async function contextRemove(inv: Invocation): Promise<number> {
  const path = configPath();
  const config = await readConfig(path);
  const name = inv.args[0]!;
  if (!config.contexts.some((c) => c.name === name)) throw new CliError(`no context named "${name}"`);
  config.contexts = config.contexts.filter((c) => c.name !== name);
  if (config.currentContext === name) delete config.currentContext;
  await writeConfig(path, config);
  process.stderr.write(`deleted context "${name}"\n`);
  return ExitCode.ok;
}
