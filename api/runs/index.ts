export { runRoutes } from './routes.ts';
export { runOperations } from './openapi.ts';
export { answerDetached, detachRequested, eventsUrl, type DetachedCall } from './detach.ts';
