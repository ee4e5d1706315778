// What users install is what the tests ran: the Helm chart renders (defaults, and every
// optional feature on), the real apiserver accepts every object in a server-side dry run
// (with cert-manager's CRDs installed), the kustomize bases render the same objects, and
// the values schema refuses what it must.
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  BASE_RELEASE,
  BASE_VALUES,
  helmBinary,
  kustomizeBases,
  parseManifests,
  renderChart,
  withoutHelmLabels,
} from '../../hack/helm/kustomize.ts';
import { API_NODE_OPTIONS } from '../../cmd/node-options.ts';
import { webhookCertificates, webhookConfigurations } from '../../webhook/index.ts';
import { installCrds, kubeAssets, readCrds } from '../../stack/index.ts';
import { adminKubeConfig } from '../support/index.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** Every optional feature and named setting on: the widest rendering. */
const ALL_ON = [
  'networking.previewDomain=preview.example.com',
  'networking.portForwardIngressClass=traefik',
  'networking.ingressNamespace=ingress-nginx',
  'auth.oidc.issuer=https://issuer.example.com',
  'auth.oidc.audience=svc',
  'auth.oidc.adminGroup=svc-admins',
  'auth.oidc.algorithms={RS256,ES256}',
  'auth.devAuth=true',
  'optional.admissionWebhook.enabled=true',
  'optional.admissionWebhook.failurePolicy=Ignore',
  'optional.agentMemorySidecar.enabled=true',
  'optional.agentMemorySidecar.command={mem0,serve}',
  'otlpEndpoint=http://otel-collector.observability:4318',
  'image.pullSecrets={regcred}',
  'api.replicas=3',
  'api.terminationGracePeriodSeconds=120',
  'api.limits.perUserConcurrency=16',
  'egress.replicas=3',
  'egress.port=3129',
  'egress.summaryWindowSeconds=30',
  'operator.sandboxdDelivery=csi',
  'sandboxdCsi.priorityClassName=system-node-critical',
];

let helm = '';
let kubectl = '';
const kubeconfig = () => inject('kubeconfigPath');

/** `kubectl apply --server-side --dry-run=server` of a YAML stream; resolves with kubectl's output. */
async function dryRun(yaml: string): Promise<{ code: number; out: string }> {
  const child = execFile(
    kubectl,
    [
      '--kubeconfig',
      kubeconfig(),
      'apply',
      '--server-side',
      '--force-conflicts',
      '--dry-run=server',
      '-f',
      '-',
    ],
    { maxBuffer: 1 << 24 },
  );
  child.stdin!.end(yaml);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  return { code, out };
}

/** helm's failure message for a rendering that must fail. */
function renderError(set: string[]): string {
  try {
    renderChart(helm, { set });
  } catch (err) {
    return String((err as { stderr?: unknown }).stderr);
  }
  throw new Error(`rendering with ${set.join(' ')} succeeded`);
}

const sortKey = (o: { kind: string; metadata: { name: string; namespace?: string } }) =>
  `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

let createdNamespace = false;
beforeAll(async () => {
  helm = helmBinary();
  kubectl = join(await kubeAssets(), 'kubectl');
  const certManager = (
    await run('bash', [join(root, 'hack/kube/crds.sh'), 'cert-manager'], { maxBuffer: 1 << 24 })
  ).stdout
    .trim()
    .split('\n')
    .at(-1)!;
  const kc = adminKubeConfig();
  await installCrds(kc, await readCrds([certManager]));
  // The bases name svc-system; a dry run of a namespaced object needs its namespace to exist.
  await kc
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: BASE_RELEASE.namespace } } })
    .then(
      () => (createdNamespace = true),
      (err: unknown) => {
        if ((err as { code?: number }).code !== 409) throw err;
      },
    );
}, 300_000);

afterAll(async () => {
  if (createdNamespace)
    await adminKubeConfig().makeApiClient(CoreV1Api).deleteNamespace({ name: BASE_RELEASE.namespace });
});

describe('Helm chart config/helm/svc', () => {
  it.each([
    // Under `helm template` the cluster serves no cert-manager API: the self-signed mode.
    ['default values', []],
    ['the webhook certificate from cert-manager', ['webhook.certificates=certManager']],
    ['every optional feature on', ALL_ON],
  ])('%s: every object passes a server-side dry run', async (_, set) => {
    const rendered = renderChart(helm, { includeCrds: true, set });
    const objects = parseManifests(rendered);
    expect(objects.length).toBeGreaterThan(30);
    const { code, out } = await dryRun(rendered);
    expect(out).not.toMatch(/error|invalid|forbidden/i);
    expect(code).toBe(0);
    // One line per object, each a dry run that was accepted.
    expect(out.trim().split('\n')).toHaveLength(objects.length);
  });

  it('every optional feature on reaches the components as flags', () => {
    const objects = parseManifests(renderChart(helm, { set: ALL_ON })) as unknown as {
      kind: string;
      metadata: { name: string };
      spec?: { template?: { spec: { containers: { args: string[] }[] } } };
    }[];
    const args = (name: string) =>
      objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec!.template!.spec
        .containers[0]!.args;
    expect(args('svc-api')).toEqual(
      expect.arrayContaining([
        '--auth.oidc.issuer=https://issuer.example.com',
        '--auth.oidc.audience=svc',
        '--auth.oidc.adminGroup=svc-admins',
        '--auth.oidc.algorithms=RS256,ES256',
        '--limits.perUserConcurrency=16',
        '--auth.devAuth=true',
        '--networking.previewDomain=preview.example.com',
        '--otlp-endpoint=http://otel-collector.observability:4318',
        '--shutdown-grace-seconds=110',
        '--console.dir=/app/console',
      ]),
    );
    expect(args('svc-operator')).toEqual(
      expect.arrayContaining([
        '--networking.previewDomain=preview.example.com',
        '--networking.portForwardIngressClass=traefik',
        '--networking.ingressNamespace=ingress-nginx',
        '--optional.agentMemorySidecar.enabled=true',
        '--optional.agentMemorySidecar.command=mem0 serve',
      ]),
    );
    const hooks = objects.filter((o) => o.kind.endsWith('WebhookConfiguration')) as unknown as {
      webhooks: { failurePolicy: string }[];
    }[];
    expect(hooks.map((h) => h.webhooks[0]!.failurePolicy)).toEqual(['Ignore', 'Ignore']);
  });

  it('runs the API with the Node options `make dev` and the benches give it', () => {
    const objects = parseManifests(renderChart(helm, {})) as unknown as {
      kind: string;
      metadata: { name: string };
      spec?: { template?: { spec: { containers: { env?: { name: string; value: string }[] }[] } } };
    }[];
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-api')!;
    expect(api.spec!.template!.spec.containers[0]!.env).toEqual([
      { name: 'NODE_OPTIONS', value: API_NODE_OPTIONS.join(' ') },
    ]);
  });

  it('without the webhook: no webhook, certificate or webhook RBAC objects', () => {
    const kinds = parseManifests(renderChart(helm, { set: ['optional.admissionWebhook.enabled=false'] })).map(
      (o) => `${o.kind}/${o.metadata.name}`,
    );
    expect(kinds.filter((k) => /webhook|Certificate|Issuer/i.test(k))).toEqual([]);
    expect(kinds).toContain('Deployment/svc-operator');
    expect(kinds).toContain('Deployment/svc-api');
  });

  it('the webhook objects are the ones webhook/ builds for the test harness', () => {
    const objects = parseManifests(renderChart(helm, { set: BASE_VALUES })).map((o) => withoutHelmLabels(o));
    const strip = (o: object) => {
      const { labels: _, ...metadata } = (o as { metadata: object & { labels?: unknown } }).metadata;
      return JSON.parse(JSON.stringify({ ...o, metadata })) as unknown;
    };
    const certs = webhookCertificates({ namespace: BASE_RELEASE.namespace, service: 'svc-webhook' });
    const configs = webhookConfigurations({
      name: 'svc-sandbox',
      failurePolicy: 'Fail',
      target: { service: { namespace: BASE_RELEASE.namespace, name: 'svc-webhook', port: 443 } },
      injectCaFrom: certs.injectCaFrom,
      operatorUsername: `system:serviceaccount:${BASE_RELEASE.namespace}:svc-operator`,
      apiUsername: `system:serviceaccount:${BASE_RELEASE.namespace}:svc-api`,
    });
    const rendered = (kind: string, name: string) =>
      strip(objects.find((o) => o.kind === kind && o.metadata.name === name)!);
    expect(rendered('MutatingWebhookConfiguration', 'svc-sandbox')).toEqual(strip(configs.mutating));
    expect(rendered('ValidatingWebhookConfiguration', 'svc-sandbox')).toEqual(strip(configs.validating));
    for (const o of certs.objects) {
      expect(rendered(o.kind, o.metadata!.name!)).toEqual(strip(o.toJSON() as object));
    }
  });
});

type Rendered = {
  kind: string;
  rules?: unknown[];
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown> & {
    replicas?: number;
    template?: {
      spec: {
        serviceAccountName?: string;
        containers: { args: string[]; ports?: { name: string; containerPort: number }[] }[];
      };
    };
  };
};

describe('the egress gateway (egress.*)', () => {
  const render = (set: string[]) =>
    parseManifests(
      renderChart(helm, { set: ['sandboxNamespaces={team-a,team-b}', ...set] }),
    ) as unknown as Rendered[];
  const find = (objects: Rendered[], kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);
  const names = (objects: Rendered[]) =>
    objects
      .filter((o) => /egress/.test(o.metadata.name))
      .map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)
      .sort();

  it('is a Deployment of its own (2 replicas of `svc egress` as its own ServiceAccount), a Service, a PodDisruptionBudget and a NetworkPolicy; the operator points sandboxes at it', () => {
    const objects = render([]);
    expect(names(objects)).toEqual([
      'ClusterRole//svc-egress',
      'ClusterRole//svc-egress-sandboxes',
      'ClusterRoleBinding//svc-egress',
      'Deployment/svc-system/svc-egress',
      'NetworkPolicy/svc-system/svc-egress',
      'PodDisruptionBudget/svc-system/svc-egress',
      'RoleBinding/team-a/svc-egress-sandboxes',
      'RoleBinding/team-b/svc-egress-sandboxes',
      'Service/svc-system/svc-egress',
      'ServiceAccount/svc-system/svc-egress',
    ]);
    const gateway = find(objects, 'Deployment', 'svc-egress')!.spec!;
    expect(gateway.replicas).toBe(2);
    expect(gateway.template!.spec.serviceAccountName).toBe('svc-egress');
    expect(gateway.template!.spec.containers[0]!.args).toEqual([
      'egress',
      '--log-level=info',
      '--listen=0.0.0.0:3128',
      '--metrics-listen=0.0.0.0:8081',
      '--summary-window-seconds=60',
      '--sandbox-namespaces=team-a,team-b',
    ]);
    expect(gateway.template!.spec.containers[0]!.ports).toEqual([
      { name: 'proxy', containerPort: 3128 },
      { name: 'metrics', containerPort: 8081 },
    ]);
    expect(find(objects, 'Service', 'svc-egress')!.spec!.ports).toEqual([
      { name: 'proxy', port: 3128, targetPort: 'proxy' },
    ]);
    expect(find(objects, 'NetworkPolicy', 'svc-egress')!.spec!.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'svc.io/sandboxes': 'enabled' } },
            podSelector: { matchExpressions: [{ key: 'svc.io/sandbox', operator: 'Exists' }] },
          },
        ],
        ports: [{ port: 3128, protocol: 'TCP' }],
      },
      { ports: [{ port: 8081, protocol: 'TCP' }] },
    ]);
    const operator = find(objects, 'Deployment', 'svc-operator')!.spec!.template!.spec.containers[0]!.args;
    expect(operator.filter((a) => a.startsWith('--networking.egressGateway.'))).toEqual([
      '--networking.egressGateway.url=http://svc-egress.svc-system.svc:3128',
      '--networking.egressGateway.port=3128',
      '--networking.egressGateway.podLabels=app.kubernetes.io/name=svc,app.kubernetes.io/instance=svc,app.kubernetes.io/component=egress',
    ]);
  });

  it('its RBAC: ClusterSandboxTemplates cluster-wide; Pods, Sandboxes, SandboxTemplates and Event creates only where a RoleBinding grants them', () => {
    const objects = render([]);
    expect(find(objects, 'ClusterRole', 'svc-egress')!.rules).toEqual([
      { apiGroups: ['svc.io'], resources: ['clustersandboxtemplates'], verbs: ['list', 'watch'] },
    ]);
    expect(find(objects, 'ClusterRole', 'svc-egress-sandboxes')!.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: ['svc.io'], resources: ['sandboxes', 'sandboxtemplates'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ]);
  });

  it('egress.port and egress.replicas reach the gateway, its Service and the operator', () => {
    const objects = render(['egress.port=8888', 'egress.replicas=3', 'egress.summaryWindowSeconds=5']);
    const gateway = find(objects, 'Deployment', 'svc-egress')!.spec!;
    expect(gateway.replicas).toBe(3);
    expect(gateway.template!.spec.containers[0]!.args).toEqual(
      expect.arrayContaining(['--listen=0.0.0.0:8888', '--summary-window-seconds=5']),
    );
    expect(find(objects, 'Service', 'svc-egress')!.spec!.ports).toEqual([
      { name: 'proxy', port: 8888, targetPort: 'proxy' },
    ]);
    const operator = find(objects, 'Deployment', 'svc-operator')!.spec!.template!.spec.containers[0]!.args;
    expect(operator).toEqual(
      expect.arrayContaining([
        '--networking.egressGateway.url=http://svc-egress.svc-system.svc:8888',
        '--networking.egressGateway.port=8888',
      ]),
    );
  });

  it('egress.enabled=false: no gateway object, and the operator has no gateway (allowlist sandboxes reach DNS only)', () => {
    const objects = render(['egress.enabled=false']);
    expect(names(objects)).toEqual([]);
    const operator = find(objects, 'Deployment', 'svc-operator')!.spec!.template!.spec.containers[0]!.args;
    expect(operator.filter((a) => a.includes('egressGateway'))).toEqual([]);
  });

  it('a mistyped egress value fails, naming it', () => {
    expect(renderError(['egress.port=70000'])).toMatch(/at '\/egress\/port'/);
    expect(renderError(['egress.enabled=maybe'])).toMatch(/at '\/egress\/enabled': got string, want boolean/);
  });
});

describe('sandboxd delivery csi (operator.sandboxdDelivery, sandboxdCsi.*)', () => {
  type Csi = Rendered & {
    spec?: {
      attachRequired?: boolean;
      podInfoOnMount?: boolean;
      volumeLifecycleModes?: string[];
      template?: {
        spec: {
          automountServiceAccountToken?: boolean;
          tolerations?: unknown[];
          containers: {
            command?: string[];
            args: string[];
            securityContext?: Record<string, unknown>;
            volumeMounts?: { name: string; mountPath: string; mountPropagation?: string }[];
          }[];
          volumes?: { name: string; hostPath?: { path: string } }[];
        };
      };
    };
  };
  const render = (set: string[]) => parseManifests(renderChart(helm, { set })) as unknown as Csi[];
  const csiObjects = (objects: Csi[]) =>
    objects
      .filter((o) => /sandboxd-csi|sandboxd\.svc\.io/.test(o.metadata.name))
      .map(sortKey)
      .sort();

  it('initContainer or imageVolume: nothing of the node plugin is rendered', () => {
    expect(csiObjects(render(['operator.sandboxdDelivery=initContainer']))).toEqual([]);
    expect(csiObjects(render(['operator.sandboxdDelivery=imageVolume']))).toEqual([]);
  });

  it('csi, the default: a CSIDriver for inline use only and a privileged DaemonSet on every node; the operator asks for csi', () => {
    const objects = render([]);
    expect(csiObjects(objects)).toEqual([
      'CSIDriver//sandboxd.svc.io',
      'DaemonSet/svc-system/svc-sandboxd-csi',
    ]);
    const driver = objects.find((o) => o.kind === 'CSIDriver')!;
    expect(driver.spec).toMatchObject({
      attachRequired: false,
      podInfoOnMount: false,
      volumeLifecycleModes: ['Ephemeral'],
    });
    const pod = objects.find((o) => o.kind === 'DaemonSet')!.spec!.template!.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    const plugin = pod.containers[0]!;
    expect(plugin.command).toEqual(['/usr/local/bin/sandboxd-csi']);
    expect(plugin.args).toEqual(
      expect.arrayContaining(['--kubelet-dir=/var/lib/kubelet', '--store=/var/lib/svc/sandboxd']),
    );
    expect(plugin.securityContext).toMatchObject({ privileged: true, readOnlyRootFilesystem: true });
    // Bidirectional on the kubelet's pods folder alone.
    expect(plugin.volumeMounts?.filter((m) => m.mountPropagation)).toEqual([
      { name: 'kubelet-pods', mountPath: '/var/lib/kubelet/pods', mountPropagation: 'Bidirectional' },
    ]);
    const operator = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-operator')!;
    expect(operator.spec!.template!.spec.containers[0]!.args).toContain('--sandboxd-delivery=csi');
  });

  it('sandboxdCsi.kubeletDir and hostDir move every host path', () => {
    const objects = render([
      'operator.sandboxdDelivery=csi',
      'sandboxdCsi.kubeletDir=/data/kubelet/',
      'sandboxdCsi.hostDir=/data/svc',
    ]);
    const pod = objects.find((o) => o.kind === 'DaemonSet')!.spec!.template!.spec;
    expect(pod.volumes?.map((v) => v.hostPath?.path)).toEqual([
      '/data/kubelet/pods',
      '/data/kubelet/plugins/sandboxd.svc.io',
      '/data/kubelet/plugins_registry',
      '/data/svc',
    ]);
    expect(pod.containers[0]!.args).toEqual(
      expect.arrayContaining(['--kubelet-dir=/data/kubelet', '--store=/data/svc']),
    );
  });

  it('a relative sandboxdCsi.hostDir fails, naming it', () => {
    expect(renderError(['sandboxdCsi.hostDir=var/lib/svc'])).toMatch(/hostDir/);
  });
});

describe('values', () => {
  it('audit.includeInvokePayloads: true fails with a clear message', () => {
    expect(renderError(['audit.includeInvokePayloads=true'])).toContain(
      'audit.includeInvokePayloads: not available in this version of svc (argv and stdin are never recorded); remove the setting or set it to false',
    );
  });

  it('an unknown value fails, naming it', () => {
    expect(renderError(['networking.previewDomian=example.com'])).toMatch(
      /at '\/networking': additional properties 'previewDomian' not allowed/,
    );
    expect(renderError(['telemetry=true'])).toMatch(/additional properties 'telemetry' not allowed/);
  });

  it('a mistyped value fails, naming it and the type', () => {
    expect(renderError(['api.replicas=two'])).toMatch(/at '\/api\/replicas': got string, want integer/);
    expect(renderError(['optional.admissionWebhook.failurePolicy=Open'])).toMatch(
      /at '\/optional\/admissionWebhook\/failurePolicy'/,
    );
    expect(renderError(['auth.devAuth=yes-please'])).toMatch(
      /at '\/auth\/devAuth': got string, want boolean/,
    );
  });

  it('an OIDC issuer without an audience fails', () => {
    expect(renderError(['auth.oidc.issuer=https://issuer.example.com'])).toContain(
      'auth.oidc.audience: required when auth.oidc.issuer is set',
    );
  });
});

describe('kustomize bases', () => {
  it('are what `make kustomize` generates from the chart (no drift)', async () => {
    for (const [path, content] of kustomizeBases(renderChart(helm, { set: BASE_VALUES }))) {
      expect(await readFile(join(root, path), 'utf8'), `${path}: run \`make kustomize\``).toBe(content);
    }
  });

  it('config/default renders the chart’s objects, plus the Namespace', () => {
    const kustomized = parseManifests(
      execFileSync(kubectl, ['kustomize', join(root, 'config/default')], { encoding: 'utf8' }),
    );
    const charted = parseManifests(renderChart(helm, { includeCrds: true, set: BASE_VALUES })).map((o) =>
      withoutHelmLabels(o),
    );
    const canonical = (list: typeof charted) =>
      list.map((o) => withoutHelmLabels(o)).sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    const namespace = kustomized.filter((o) => o.kind === 'Namespace');
    expect(namespace.map((o) => o.metadata.name)).toEqual([BASE_RELEASE.namespace]);
    expect(canonical(kustomized.filter((o) => o.kind !== 'Namespace'))).toEqual(canonical(charted));
  });

  it('config/default passes a server-side dry run', async () => {
    const yaml = execFileSync(kubectl, ['kustomize', join(root, 'config/default')], { encoding: 'utf8' });
    const { code, out } = await dryRun(yaml);
    expect(out).not.toMatch(/error|invalid|forbidden/i);
    expect(code).toBe(0);
  });
});
