import { TemplateKind } from '../sandbox/spec.ts';

type Kind = (typeof TemplateKind.options)[number];

/** An `allowedTemplates` entry: `<name>`, or `<kind>/<name>` with kind as in `templateRef`. */
export const TEMPLATE_ENTRY = /^((ClusterSandboxTemplate|SandboxTemplate)\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Whether `allowedTemplates` admits the template `ref` names. A plain name is a
 * ClusterSandboxTemplate (what a `templateRef` without a kind means, and what policies
 * written before kinds were told apart meant); a namespace's own SandboxTemplate must be
 * listed as `SandboxTemplate/<name>`, so one named like an allowed cluster template does
 * not pass for it.
 * @example templateAllowed(['default'], { kind: 'SandboxTemplate', name: 'default' }) // false
 */
export function templateAllowed(allowed: readonly string[], ref: { kind?: Kind; name: string }): boolean {
  const kind = ref.kind ?? 'ClusterSandboxTemplate';
  return allowed.some((entry) => {
    const slash = entry.indexOf('/');
    const [entryKind, name] =
      slash < 0 ? ['ClusterSandboxTemplate', entry] : [entry.slice(0, slash), entry.slice(slash + 1)];
    return entryKind === kind && name === ref.name;
  });
}

/** How a template is named in messages: its name for a ClusterSandboxTemplate, else `<kind>/<name>`. */
export function templateLabel(ref: { kind?: Kind; name: string }): string {
  return !ref.kind || ref.kind === 'ClusterSandboxTemplate' ? ref.name : `${ref.kind}/${ref.name}`;
}

/** `status.resolvedTemplate` (`<kind>/<name>`) as a reference; a bare name is a cluster template's. */
export function parseTemplateLabel(label: string): { kind: Kind; name: string } {
  const slash = label.indexOf('/');
  const kind = TemplateKind.safeParse(label.slice(0, slash));
  return slash >= 0 && kind.success
    ? { kind: kind.data, name: label.slice(slash + 1) }
    : { kind: 'ClusterSandboxTemplate', name: label };
}

/**
 * Whether `image` is under one of `prefixes` at a boundary: `ghcr.io/acme` admits
 * `ghcr.io/acme`, `ghcr.io/acme/x`, `ghcr.io/acme:tag` and `ghcr.io/acme@sha256:…`, never
 * `ghcr.io/acme-evil/x` (nor `ghcr.io:5000/x` under `ghcr.io`: a tag or digest may follow,
 * not a port). An entry that ends in `/`, `:` or `@` already names its boundary and
 * matches as a plain prefix (`ghcr.io/acme/`).
 * @example imageAllowed('ghcr.io/acme-evil/x', ['ghcr.io/acme']) // false
 */
export function imageAllowed(image: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => {
    if (/[/:@]$/.test(p)) return image.startsWith(p);
    if (!image.startsWith(p)) return false;
    const rest = image.slice(p.length);
    return rest === '' || rest.startsWith('/') || (/^[:@]/.test(rest) && !rest.includes('/'));
  });
}
