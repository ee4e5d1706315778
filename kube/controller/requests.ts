import type { KubeConfig } from '@kubernetes/client-node';

/** Told of every request a client made from the returned KubeConfig sends. */
export type RequestListener = (verb: string, resource: string) => void;

/**
 * A KubeConfig whose every request (API clients, watches, lists) is reported first, by the
 * apiserver's own verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`) and
 * resource (`pods`, `sandboxes/status`). client-node authenticates each request through its
 * KubeConfig, which makes that the one place all of them pass.
 */
export function countingKubeConfig(kc: KubeConfig, onRequest: RequestListener): KubeConfig {
  const counted = Object.create(kc) as KubeConfig;
  counted.applySecurityAuthentication = async (context) => {
    const { verb, resource } = describeRequest(context.getHttpMethod(), context.getUrl());
    onRequest(verb, resource);
    await kc.applySecurityAuthentication(context);
  };
  return counted;
}

/** The verb and resource of one request to the apiserver, as its audit log names them. */
export function describeRequest(method: string, url: string): { verb: string; resource: string } {
  const u = new URL(url, 'http://apiserver');
  const parts = u.pathname.split('/').filter(Boolean);
  // /api/v1/… or /apis/<group>/<version>/…, then namespaces/<ns>/ when namespaced.
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource = '', name, subresource] = rest;
  const collection = name === undefined;
  const m = method.toUpperCase();
  const verb =
    m === 'GET'
      ? u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1'
        ? 'watch'
        : collection
          ? 'list'
          : 'get'
      : m === 'POST'
        ? 'create'
        : m === 'PUT'
          ? 'update'
          : m === 'PATCH'
            ? 'patch'
            : m === 'DELETE'
              ? collection
                ? 'deletecollection'
                : 'delete'
              : m.toLowerCase();
  return { verb, resource: subresource ? `${resource}/${subresource}` : resource };
}
