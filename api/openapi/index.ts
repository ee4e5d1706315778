export { openApiDocument, operations, type Operation, type Status } from './document.ts';
export {
  operation,
  operationOf,
  route,
  parsed,
  readJson,
  validQuery,
  type Answer,
  type Reply,
} from './route.ts';
export { getOpenApiDocument } from './operations.ts';
