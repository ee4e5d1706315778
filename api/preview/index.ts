export { previewRoutes, previewTarget } from './routes.ts';
export { PreviewTargets, parseHostAddress } from './target.ts';
export { previewUpgrade } from './upgrade.ts';
