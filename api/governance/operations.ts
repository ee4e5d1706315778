import { EffectivePolicy, NamespaceQuery, Policy, StoredPolicies } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { adminDelete, adminList, adminWrite } from '../openapi/shared.ts';

export const getPolicies = operation({
  method: 'get',
  path: '/governance/policies',
  operationId: 'getPolicies',
  summary: 'The cluster default and every namespace override (admin)',
  responses: { 200: StoredPolicies },
  errors: [...adminList, 500],
});

export const setClusterPolicy = operation({
  method: 'put',
  path: '/governance/policies',
  operationId: 'setClusterPolicy',
  summary: 'Set the cluster default policy (admin)',
  request: Policy,
  responses: { 200: Policy },
  errors: adminWrite,
});

export const setNamespacePolicy = operation({
  method: 'put',
  path: '/governance/policies/{namespace}',
  operationId: 'setNamespacePolicy',
  summary: 'Set a namespace override (admin)',
  request: Policy,
  responses: { 200: Policy },
  errors: adminWrite,
});

export const deleteNamespacePolicy = operation({
  method: 'delete',
  path: '/governance/policies/{namespace}',
  operationId: 'deleteNamespacePolicy',
  summary: 'Remove a namespace override (admin)',
  responses: { 204: undefined },
  errors: adminDelete,
});

export const getEffectivePolicy = operation({
  method: 'get',
  path: '/governance/effective',
  operationId: 'getEffectivePolicy',
  summary: 'The policy in force in a namespace',
  query: NamespaceQuery,
  responses: { 200: EffectivePolicy },
  errors: [400, 401, 403, 500, 503],
});

export const governanceOperations = [
  getPolicies,
  setClusterPolicy,
  setNamespacePolicy,
  deleteNamespacePolicy,
  getEffectivePolicy,
];
