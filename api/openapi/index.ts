export { openApiDocument, operations } from './document.ts';
