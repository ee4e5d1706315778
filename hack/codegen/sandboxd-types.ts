// Generates sandboxd's HTTP types from sandboxd/openapi.json, the one description of the
// contract between sandboxd and this client: `openapi.ts` by openapi-typescript, as the
// API's client types are (clients/typescript/codegen). It lives in hack/, not beside the
// client in kube/, because kube/ ships in the image and openapi-typescript is a dev dependency.
//   node hack/codegen/sandboxd-types.ts          writes kube/sandboxd/openapi.ts
//   node hack/codegen/sandboxd-types.ts --check  exits 1 if it differs (make check-generated)
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

const root = join(import.meta.dirname, '..', '..');
export const documentPath = join(root, 'sandboxd', 'openapi.json');
export const generatedPath = join(root, 'kube', 'sandboxd', 'openapi.ts');

const BANNER = `// Generated from sandboxd/openapi.json by hack/codegen/sandboxd-types.ts; do not edit.
// Regenerate with \`make sandboxd-types\` (make check-generated fails when this file drifts).
`;

/** The generated file's text. */
export async function render(doc: OpenAPI3): Promise<string> {
  // defaultNonNullable off, as for the API's types: a field with a default is optional.
  const ast = await openapiTS(structuredClone(doc), { silent: true, defaultNonNullable: false });
  return `${BANNER}\n${astToString(ast)}`;
}

async function main(check: boolean): Promise<number> {
  const doc = JSON.parse(await readFile(documentPath, 'utf8')) as OpenAPI3;
  const text = await render(doc);
  const current = await readFile(generatedPath, 'utf8').catch(() => '');
  if (current === text) return 0;
  if (check) {
    console.error(`${generatedPath} is out of date with sandboxd/openapi.json; run make sandboxd-types`);
    return 1;
  }
  await writeFile(generatedPath, text);
  console.log(`wrote ${generatedPath}`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.includes('--check'));
