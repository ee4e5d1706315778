// The checked-in types are exactly what the generator makes of api/openapi.json today.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { generatedDir, readDocument, render, sseOperations } from './generate.ts';

test('generated/ matches api/openapi.json (run `make client-types` after `make generate`)', async () => {
  const files = await render(await readDocument());
  expect(Object.keys(files).sort()).toEqual(['openapi.ts', 'sse-events.ts']);
  for (const [name, text] of Object.entries(files)) {
    expect(await readFile(join(generatedDir, name), 'utf8'), `${name} drifted`).toBe(text);
  }
}, 60_000);

test('the streaming operations and their events are read from x-sse-events', async () => {
  expect(sseOperations(await readDocument())).toEqual([
    {
      operationId: 'configureSandbox',
      events: { log: 'LogEvent', result: 'ConfigureResult', error: 'ErrorEvent' },
    },
    {
      operationId: 'execSandbox',
      events: { start: 'StartEvent', log: 'LogEvent', exit: 'ExitEvent', error: 'ErrorEvent' },
    },
    {
      operationId: 'getRunEvents',
      events: {
        start: 'StartEvent',
        log: 'LogEvent',
        drop: 'DropEvent',
        exit: 'ExitEvent',
        error: 'ErrorEvent',
      },
    },
    { operationId: 'getSandboxLogs', events: { log: 'LogEvent' } },
    {
      operationId: 'invokeSandbox',
      events: { start: 'StartEvent', log: 'LogEvent', exit: 'ExitEvent', error: 'ErrorEvent' },
    },
    {
      operationId: 'listSandboxes',
      events: { added: 'Sandbox', modified: 'Sandbox', deleted: 'Sandbox' },
    },
  ]);
});
