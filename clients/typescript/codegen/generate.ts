// Generates the client's types from api/openapi.json, their one source: `openapi.ts` by
// openapi-typescript (paths, operations, components) and `sse-events.ts` from the document's
// `x-sse-events` (which event names a streaming operation sends, and each one's schema).
//   node clients/typescript/codegen/generate.ts          writes both files
//   node clients/typescript/codegen/generate.ts --check  exits 1 if either differs
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

const root = join(import.meta.dirname, '..', '..', '..');
export const documentPath = join(root, 'api', 'openapi.json');
export const generatedDir = join(import.meta.dirname, '..', 'generated');

const BANNER = `// Generated from api/openapi.json by clients/typescript/codegen/generate.ts; do not edit.
// Regenerate with \`make client-types\` (a unit test fails when this file drifts).
`;

interface SseOperation {
  operationId: string;
  events: Record<string, string>;
}

/** The streaming operations and, per event name, the name of its data's schema. */
export function sseOperations(doc: OpenAPI3): SseOperation[] {
  const out: SseOperation[] = [];
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, unknown>)) {
      if (typeof op !== 'object' || op === null || !('operationId' in op) || !('responses' in op)) continue;
      const { operationId, responses } = op as {
        operationId: string;
        responses: Record<string, { content?: Record<string, { 'x-sse-events'?: object }> }>;
      };
      const sse = responses['200']?.content?.['text/event-stream']?.['x-sse-events'];
      if (!sse) continue;
      const events: Record<string, string> = {};
      for (const [name, schema] of Object.entries(sse as Record<string, { $ref?: string }>)) {
        const ref = /^#\/components\/schemas\/(\w+)$/.exec(schema.$ref ?? '');
        if (!ref) throw new Error(`${operationId}: the schema of SSE event ${name} is not a component $ref`);
        events[name] = ref[1]!;
      }
      out.push({ operationId, events });
    }
  }
  return out.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

function renderSse(ops: SseOperation[]): string {
  const lines = [
    BANNER,
    "import type { components } from './openapi.ts';",
    '',
    "type Schemas = components['schemas'];",
    '',
    '/** Per streaming operation: each SSE event name and the type of its (JSON) data. */',
    'export interface SseEvents {',
  ];
  for (const op of ops) {
    lines.push(`  ${op.operationId}: {`);
    for (const [name, schema] of Object.entries(op.events)) lines.push(`    ${name}: Schemas['${schema}'];`);
    lines.push('  };');
  }
  lines.push('}', '', '/** The same event names at run time (a stream skips names it does not know). */');
  lines.push('export const sseEventNames = {');
  for (const op of ops) {
    lines.push(
      `  ${op.operationId}: [${Object.keys(op.events)
        .map((n) => `'${n}'`)
        .join(', ')}],`,
    );
  }
  lines.push('} as const;', '');
  return lines.join('\n');
}

/** Both generated files' text, by file name. */
export async function render(doc: OpenAPI3): Promise<Record<string, string>> {
  // openapi-typescript resolves refs in place; give it a copy so `doc` stays as read.
  // defaultNonNullable off: a field with a default is optional to send (the API fills it
  // in), so request bodies must not require it; answers then type it optional too.
  const ast = await openapiTS(structuredClone(doc), { silent: true, defaultNonNullable: false });
  return {
    'openapi.ts': BANNER + '\n' + astToString(ast),
    'sse-events.ts': renderSse(sseOperations(doc)),
  };
}

export async function readDocument(): Promise<OpenAPI3> {
  return JSON.parse(await readFile(documentPath, 'utf8')) as OpenAPI3;
}

async function main(check: boolean): Promise<number> {
  const files = await render(await readDocument());
  let stale = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = join(generatedDir, name);
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current === text) continue;
    if (check) {
      console.error(`${path} is out of date with api/openapi.json; run make client-types`);
      stale++;
    } else {
      await writeFile(path, text);
      console.log(`wrote ${path}`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (import.meta.main) process.exitCode = await main(process.argv.includes('--check'));
