// The one door of kube: client-node helpers shared by the operator, webhook and API.
export * from './quota/index.ts';
export * from './governance/index.ts';
export * from './sandboxd/index.ts';
export * from './controller/index.ts';
