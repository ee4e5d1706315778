import { describe, expect, test } from 'vitest';
import { describeRequest } from './requests.ts';

describe('describeRequest', () => {
  test.each([
    ['GET', 'https://k:6443/api/v1/namespaces/a/pods/s1', 'get', 'pods'],
    ['GET', 'https://k:6443/api/v1/namespaces/a/pods?labelSelector=x', 'list', 'pods'],
    ['GET', 'https://k:6443/api/v1/pods?watch=true&resourceVersion=5', 'watch', 'pods'],
    ['POST', 'https://k:6443/api/v1/namespaces/a/secrets', 'create', 'secrets'],
    [
      'PATCH',
      'https://k:6443/apis/svc.io/v1alpha1/namespaces/a/sandboxes/s1/status',
      'patch',
      'sandboxes/status',
    ],
    [
      'PUT',
      'https://k:6443/apis/coordination.k8s.io/v1/namespaces/svc/leases/svc-operator',
      'update',
      'leases',
    ],
    [
      'DELETE',
      'https://k:6443/apis/networking.k8s.io/v1/namespaces/a/networkpolicies/sandbox-s1',
      'delete',
      'networkpolicies',
    ],
    ['DELETE', 'https://k:6443/api/v1/namespaces/a/pods', 'deletecollection', 'pods'],
    ['GET', 'https://k:6443/api/v1/namespaces/a', 'get', 'namespaces'],
    [
      'GET',
      'https://k:6443/apis/svc.io/v1alpha1/clustersandboxtemplates/t',
      'get',
      'clustersandboxtemplates',
    ],
  ])('%s %s is %s %s', (method, url, verb, resource) => {
    expect(describeRequest(method, url)).toEqual({ verb, resource });
  });
});
