export { openApiDocument, operations, type Operation, type Status } from './document.ts';
export {
  operation,
  operationOf,
  route,
  honoPaths,
  methodOf,
  parsed,
  readJson,
  validQuery,
  type Answer,
  type Handler,
  type Reply,
} from './route.ts';
export { getOpenApiDocument } from './operations.ts';
