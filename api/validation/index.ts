export { pathParams, namespaceQuery } from './params.ts';
