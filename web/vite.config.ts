import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { prerenderPublicPages } from './scripts/prerender.ts';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * Vendor code is grouped so that the public pages load only React, the router and React Query,
 * and charting code (echarts, zrender) stays in its own chunk that only chart screens fetch.
 * Groups capture their modules' dependencies too, so the React group must win (highest priority):
 * otherwise echarts-for-react would drag React into the echarts chunk and every page would load it.
 */
const chunkGroups = [
  {
    name: 'react',
    test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|cookie|set-cookie-parser)[\\/]/,
    priority: 30,
  },
  { name: 'query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/, priority: 20 },
  { name: 'echarts', test: /[\\/]node_modules[\\/](echarts|zrender|echarts-for-react|size-sensor)[\\/]/, priority: 10 },
];

/**
 * `@qw/contracts` is shared with the services: besides the plan catalog it holds TypeBox schemas
 * built at module top level, which a bundler must keep as side effects. Its modules have no
 * side effects the web app relies on, so declaring them side-effect free lets the build drop
 * every contract module the pages don't use, and typebox with them.
 */
function contractsWithoutSideEffects(): Plugin {
  return {
    name: 'qw:contracts-without-side-effects',
    apply: 'build',
    transform: {
      filter: { id: /[\\/]libs[\\/]contracts[\\/]src[\\/]/ },
      handler(code) {
        return { code, map: null, moduleSideEffects: false };
      },
    },
  };
}

export default defineConfig({
  root: webRoot,
  plugins: [react(), contractsWithoutSideEffects(), prerenderPublicPages()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    rolldownOptions: {
      output: {
        codeSplitting: { groups: chunkGroups },
      },
    },
  },
  preview: { host: '127.0.0.1' },
});
