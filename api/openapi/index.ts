export { openApiDocument, operations, type Operation, type Status } from './document.ts';
export { operation, route, parsed, readJson, validQuery, type Answer, type Reply } from './route.ts';
