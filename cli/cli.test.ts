// sbx's pure parts: where the config lives and how a context is resolved, tables and ages,
// the one-line errors and their exit codes, `--since`, and `NAME:/path`.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConflictError, errorFromResponse, UnauthorizedError } from '../clients/typescript/index.ts';
import { sinceTime } from './commands/admin.ts';
import { remoteOf } from './commands/cp.ts';
import { configPath, readConfig, resolveTarget, writeConfig } from './config.ts';
import { CliError, describeError, ExitCode } from './errors.ts';
import { configureArgv } from './main.ts';
import { age, paint, table, useColour } from './output.ts';

describe('config', () => {
  test('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/sbx/config.yaml');
    expect(configPath({ XDG_CONFIG_HOME: '' })).toMatch(/\/\.config\/sbx\/config\.yaml$/);
  });

  test('round-trips through YAML with mode 0600; a missing file is no contexts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-unit-'));
    try {
      const path = join(dir, 'sbx/config.yaml');
      expect(await readConfig(path)).toEqual({ contexts: [] });
      const config = { currentContext: 'a', contexts: [{ name: 'a', server: 'http://x', apiKey: 'k' }] };
      await writeConfig(path, config);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await readFile(path, 'utf8')).toBe(
        'current-context: a\ncontexts:\n  - name: a\n    server: http://x\n    apiKey: k\n',
      );
      expect(await readConfig(path)).toEqual(config);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the environment overrides the current context field by field; flags win', () => {
    const config = {
      currentContext: 'a',
      contexts: [
        { name: 'a', server: 'http://a', apiKey: 'ka', namespace: 'na' },
        { name: 'b', server: 'http://b', apiKey: 'kb' },
      ],
    };
    expect(resolveTarget(config, {}, {})).toEqual({
      server: 'http://a',
      apiKey: 'ka',
      namespace: 'na',
      context: 'a',
    });
    expect(resolveTarget(config, { context: 'b' }, { SVC_API_KEY: 'env' })).toEqual({
      server: 'http://b',
      apiKey: 'env',
      context: 'b',
    });
    expect(
      resolveTarget(config, { namespace: 'flag' }, { SVC_NAMESPACE: 'env', SVC_BASE_URL: 'http://e' }),
    ).toMatchObject({
      server: 'http://e',
      namespace: 'flag',
    });
    expect(() => resolveTarget({ contexts: [] }, {}, {})).toThrow(/not signed in/);
    expect(() => resolveTarget(config, { context: 'zzz' }, {})).toThrow(/no context named "zzz"/);
  });
});

describe('output', () => {
  test('a kubectl table: capitals, padded columns three spaces apart, no trailing blanks', () => {
    expect(
      table(
        ['name', 'phase'],
        [
          ['a', 'Running'],
          ['longer-name', ''],
        ],
      ),
    ).toBe('NAME          PHASE\na             Running\nlonger-name\n');
  });

  test('ages as kubectl prints them', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(age('2026-01-01T23:59:15Z', now)).toBe('45s');
    expect(age('2026-01-01T23:00:00Z', now)).toBe('60m');
    expect(age('2026-01-01T12:00:00Z', now)).toBe('12h');
    expect(age('2025-12-20T00:00:00Z', now)).toBe('13d');
    expect(age(undefined, now)).toBe('<unknown>');
  });

  test('colour only on a terminal, never with NO_COLOR', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(useColour(tty, {})).toBe(true);
    expect(useColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
    expect(paint(false).red('x')).toBe('x');
    expect(paint(true).red('x')).toBe('\x1b[31mx\x1b[39m');
  });
});

describe('errors', () => {
  const headers = new Headers();
  test('an API refusal is one line with its code and status; 401 exits 4', () => {
    const unauth = errorFromResponse(401, headers, { error: 'unauthenticated', message: 'invalid API key' });
    expect(unauth).toBeInstanceOf(UnauthorizedError);
    expect(describeError(unauth)).toEqual({
      line: 'invalid API key (unauthenticated, HTTP 401)',
      exitCode: ExitCode.auth,
    });
    const conflict = errorFromResponse(409, headers, {
      error: 'not_running',
      message: 'sandbox x is Stopped',
    });
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(describeError(conflict)).toEqual({
      line: 'sandbox x is Stopped (not_running, HTTP 409)',
      exitCode: 1,
    });
  });

  test('a policy refusal lists every violation; a 400 every bad field after the first', () => {
    const policy = errorFromResponse(403, headers, {
      error: 'policy_violation',
      message: 'refused by policy',
      violations: [
        { code: 'maxSandboxesPerUser', message: 'at most 2' },
        { code: 'allowedTemplates', message: 'gpu is not allowed' },
      ],
    });
    expect(describeError(policy).line).toBe(
      'refused by policy (policy_violation, HTTP 403): maxSandboxesPerUser: at most 2; allowedTemplates: gpu is not allowed',
    );
    const bad = errorFromResponse(400, headers, {
      error: 'invalid_request',
      message: 'invalid request: name: too long',
      fields: [
        { path: 'name', message: 'too long' },
        { path: 'timeout', message: 'not a duration' },
      ],
    });
    expect(describeError(bad).line).toBe(
      'invalid request: name: too long (invalid_request, HTTP 400): name: too long; timeout: not a duration',
    );
  });

  test('a connection failure names its cause; CliError keeps its code', () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(describeError(refused)).toEqual({ line: 'cannot reach the API: ECONNREFUSED', exitCode: 1 });
    expect(describeError(new CliError('bad flag', ExitCode.usage))).toEqual({
      line: 'bad flag',
      exitCode: 2,
    });
  });
});

describe('arguments', () => {
  test('--since: a duration before now, or a time as it is', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(sinceTime('90s', now)).toBe('2026-01-01T23:58:30.000Z');
    expect(sinceTime('2h', now)).toBe('2026-01-01T22:00:00.000Z');
    expect(sinceTime('2026-01-01T10:00:00Z', now)).toBe('2026-01-01T10:00:00Z');
    expect(() => sinceTime('yesterday', now)).toThrow(CliError);
  });

  test('NAME:/path is a sandbox path; anything else is local', () => {
    expect(remoteOf('dev:/workspace/x')).toEqual({ sandbox: 'dev', path: '/workspace/x' });
    expect(remoteOf('./dev:/x')).toBeUndefined();
    expect(remoteOf('/tmp/a')).toBeUndefined();
    expect(remoteOf('C:/x')).toBeUndefined();
  });
});

describe('configure with commands after their own --', () => {
  test('--install -- and --entrypoint -- become the forms commander parses', () => {
    expect(
      configureArgv([
        'configure',
        'bot',
        '-f',
        'a.py:/workspace/a.py',
        '--install',
        '--',
        'pip',
        'install',
        "it's",
        '--entrypoint',
        '--',
        'python3',
        '/workspace/a.py',
      ]),
    ).toEqual([
      'configure',
      'bot',
      '-f',
      'a.py:/workspace/a.py',
      '--install',
      "pip install 'it'\\''s'",
      '--',
      'python3',
      '/workspace/a.py',
    ]);
  });

  test('the entrypoint first, then the install; other forms and commands untouched', () => {
    expect(
      configureArgv([
        'configure',
        'bot',
        '--entrypoint',
        '--',
        'node',
        'x.js',
        '--install',
        '--',
        'npm',
        'ci',
      ]),
    ).toEqual(['configure', 'bot', '--install', 'npm ci', '--', 'node', 'x.js']);
    const plain = ['configure', 'bot', '--install', 'pip install x', '--', 'python3', 'a.py'];
    expect(configureArgv(plain)).toEqual(plain);
    const exec = ['exec', 'dev', '--', 'sh', '-c', '--install', '--'];
    expect(configureArgv(exec)).toEqual(exec);
  });
});
