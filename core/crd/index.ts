export { customResourceDefinitions, CATEGORY, GROUP, VERSION, MAX_SANDBOX_NAME } from './definitions.ts';
export type { CustomResourceDefinition } from './definitions.ts';
export { structuralSchema } from './structural.ts';
