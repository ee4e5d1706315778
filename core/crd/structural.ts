import { z } from 'zod';

type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Turns a zod schema into a Kubernetes structural OpenAPI v3 schema: the JSON Schema that
 * zod emits, minus what the apiserver refuses (`$schema`, `additionalProperties: false`
 * beside `properties`, types inside `anyOf`), with int-or-string in the apiserver's form.
 */
export function structuralSchema(schema: z.ZodType): Schema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw' });
  // Schemas with an id (shared with the OpenAPI document) come out as references; CRD
  // schemas cannot hold `$ref`, so they are inlined.
  const definitions = {
    ...(json.definitions as Record<string, Schema> | undefined),
    ...json.$defs,
  };
  return clean(json, definitions);
}

function clean(node: Schema, definitions: Record<string, Schema>): Schema {
  if (typeof node.$ref === 'string') {
    const target = definitions[node.$ref.replace(/^#\/(definitions|\$defs)\//, '')];
    if (!target) throw new Error(`unresolvable reference ${node.$ref}`);
    return clean(target, definitions);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'definitions' || key === '$defs' || key === 'id') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) continue;
    out[key] = value;
  }
  if (out['x-kubernetes-int-or-string'] === true) return intOrString(out);
  // The apiserver validates `format: date-time` itself; zod's own regex is redundant.
  if (out.format === 'date-time') delete out.pattern;
  if (isSchema(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([name, child]) => [name, clean(child as Schema, definitions)]),
    );
  }
  if (isSchema(out.items)) out.items = clean(out.items, definitions);
  if (isSchema(out.additionalProperties))
    out.additionalProperties = clean(out.additionalProperties, definitions);
  return out;
}

function intOrString(node: Schema): Schema {
  const branches = (node.anyOf as Schema[] | undefined) ?? [];
  const pattern = branches.find((b) => b.type === 'string')?.pattern;
  const out: Schema = {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  };
  if (typeof pattern === 'string') out.pattern = pattern;
  for (const key of ['description', 'default']) if (key in node) out[key] = node[key];
  return out;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
