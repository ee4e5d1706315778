export { openApiDocument, operations, type Operation, type Status } from './document.ts';
export {
  operation,
  route,
  honoPaths,
  parsed,
  readJson,
  validQuery,
  type Answer,
  type Handler,
  type Reply,
} from './route.ts';
