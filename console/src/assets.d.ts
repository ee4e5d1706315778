// Stylesheets are bundled by esbuild (console/build.ts) into the main CSS file.
declare module '*.css';
