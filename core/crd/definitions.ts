import type { z } from 'zod';
import {
  SandboxSpec,
  SandboxStatus,
  SandboxTemplateSpec,
  SandboxWarmPoolSpec,
  SandboxWarmPoolStatus,
} from '../sandbox/index.ts';
import { structuralSchema } from './structural.ts';

export const GROUP = 'svc.io';
export const VERSION = 'v1alpha1';

/**
 * The kubectl category of every svc CRD: `kubectl get svc-all` lists sandboxes and
 * templates. kubectl expands a category before it resolves a resource name, so a category
 * must not spell any resource or short name: `svc` took `kubectl get svc` from Services,
 * and `sandboxes` would make `kubectl get sandboxes` (or `delete sandboxes --all`) take in
 * the templates too.
 */
export const CATEGORY = 'svc-all';

/** Longest Sandbox name whose derived names (`pf-<sandbox>-<port>`) still fit 63 characters. */
export const MAX_SANDBOX_NAME = 53;

interface PrinterColumn {
  name: string;
  type: 'string' | 'date' | 'integer' | 'boolean';
  jsonPath: string;
  description?: string;
}

interface CrdOptions {
  kind: string;
  /** What `kubectl explain <kind>` says of the kind; its fields' texts come from the zod schemas. */
  description: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Namespaced' | 'Cluster';
  spec: z.ZodType;
  status?: z.ZodType;
  printerColumns: PrinterColumn[];
  rootRules?: { rule: string; message: string }[];
  /** The scale subresource: `kubectl scale` and a HorizontalPodAutoscaler write `specReplicasPath`. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string };
}

function crd(o: CrdOptions) {
  const properties: Record<string, unknown> = { spec: structuralSchema(o.spec) };
  if (o.status) properties.status = structuralSchema(o.status);
  const openAPIV3Schema: Record<string, unknown> = {
    description: o.description,
    type: 'object',
    required: ['spec'],
    properties: {
      // The apiserver's own texts for the fields every object has.
      apiVersion: {
        description:
          'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
        type: 'string',
      },
      kind: {
        description:
          'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.',
        type: 'string',
      },
      // The apiserver refuses anything but a type here and serves ObjectMeta's own texts.
      metadata: { type: 'object' },
      ...properties,
    },
  };
  if (o.rootRules) openAPIV3Schema['x-kubernetes-validations'] = o.rootRules;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: o.kind,
        listKind: `${o.kind}List`,
        plural: o.plural,
        singular: o.singular,
        shortNames: o.shortNames,
        categories: [CATEGORY],
      },
      scope: o.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema },
          ...(o.status ? { subresources: { status: {}, ...(o.scale ? { scale: o.scale } : {}) } } : {}),
          additionalPrinterColumns: [
            ...o.printerColumns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

export type CustomResourceDefinition = ReturnType<typeof crd>;

/** The CRDs svc installs, generated from the zod schemas that the code validates with. */
export function customResourceDefinitions(): CustomResourceDefinition[] {
  const templateColumns: PrinterColumn[] = [{ name: 'Image', type: 'string', jsonPath: '.spec.image' }];
  return [
    crd({
      kind: 'Sandbox',
      description:
        'An isolated environment made from a template: a Pod running sandboxd with a /workspace volume. mode: code is interactive; mode: agent runs a configured entrypoint on demand.',
      plural: 'sandboxes',
      singular: 'sandbox',
      shortNames: ['sbx'],
      scope: 'Namespaced',
      spec: SandboxSpec,
      status: SandboxStatus,
      printerColumns: [
        { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
        { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        { name: 'Template', type: 'string', jsonPath: '.spec.templateRef.name' },
      ],
      rootRules: [
        {
          rule: `size(self.metadata.name) <= ${MAX_SANDBOX_NAME}`,
          message: `metadata.name must be at most ${MAX_SANDBOX_NAME} characters, so that names derived from it fit 63`,
        },
      ],
    }),
    crd({
      kind: 'SandboxTemplate',
      description:
        'A template that Sandboxes in its namespace are made from (templateRef.kind: SandboxTemplate).',
      plural: 'sandboxtemplates',
      singular: 'sandboxtemplate',
      shortNames: ['sbxt'],
      scope: 'Namespaced',
      spec: SandboxTemplateSpec,
      printerColumns: templateColumns,
    }),
    crd({
      kind: 'ClusterSandboxTemplate',
      description:
        'A template that Sandboxes in every namespace can be made from (the default templateRef.kind).',
      plural: 'clustersandboxtemplates',
      singular: 'clustersandboxtemplate',
      shortNames: ['csbxt'],
      scope: 'Cluster',
      spec: SandboxTemplateSpec,
      printerColumns: templateColumns,
    }),
    crd({
      kind: 'SandboxWarmPool',
      description:
        'Sandboxes kept ready before anyone asks: a Sandbox whose namespace, template, mode and image match claims a ready member (its Pod and workspace) instead of starting cold.',
      plural: 'sandboxwarmpools',
      singular: 'sandboxwarmpool',
      shortNames: ['sbxwp'],
      scope: 'Namespaced',
      spec: SandboxWarmPoolSpec,
      status: SandboxWarmPoolStatus,
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
      printerColumns: [
        { name: 'Template', type: 'string', jsonPath: '.spec.templateRef.name' },
        { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
        { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
      ],
    }),
  ];
}
