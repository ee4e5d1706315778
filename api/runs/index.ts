export { runRoutes } from './routes.ts';
export { runOperations } from './operations.ts';
export { answerDetached, detachRequested, eventsUrl, type DetachedCall } from './detach.ts';
