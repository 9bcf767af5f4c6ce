/// <reference types="vitest/config" />
import path from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fromConsole, sdkEntries, sdkImportMap, webDir } from './scripts/sdk-vite.mjs';

// The console is served by cubed from web/dist (SPA fallback to index.html).
// `npm run dev` proxies the API to a cubed on CUBE_API (default :8080).
const api = process.env.CUBE_API ?? 'http://127.0.0.1:8080';
const sdk = sdkEntries();

export default defineConfig({
  plugins: [react(), sdkImportMap(), fromConsole()],
  resolve: {
    // what a plugin page (and its tests) imports as @cube/console-sdk
    alias: {
      '@cube/console-sdk': path.join(webDir, 'src/sdk/index.ts'),
      '@cube/console-test': path.join(webDir, 'src/test/plugin.tsx'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true, // read by scripts/bundle-report.mjs to size the first page
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // the console, and every module it shares with plugin pages as an
      // entry of its own (sdk/shared.json; index.html's import map)
      input: { index: path.join(webDir, 'index.html'), ...sdk },
      preserveEntrySignatures: 'exports-only',
      output: {
        // React and the router are needed by every page: one long-cached chunk.
        manualChunks: { react: ['react', 'react-dom', 'react-router-dom'] },
        entryFileNames: (chunk) => (chunk.name in sdk ? `assets/${chunk.name}-[hash].js` : 'assets/[name]-[hash].js'),
        // pages/<area>/routes.tsx -> "<area>-routes-<hash>.js": readable sizes
        chunkFileNames: (chunk) => {
          const m = chunk.facadeModuleId?.match(/pages\/([^/]+)\/([^/.]+)\.tsx?$/);
          return m ? `assets/${m[1]}-${m[2]}-[hash].js` : 'assets/[name]-[hash].js';
        },
      },
    },
  },
  server: {
    proxy: { '/api': { target: api, changeOrigin: false }, '/ui': api },
    // the tests of the plugins' pages live in plugins/*/ui
    fs: { allow: [path.dirname(webDir)] },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    // the console's tests and those of the plugins' pages (plugins/*/ui)
    dir: '..',
    setupFiles: [path.join(webDir, 'src/test/setup.ts')],
    css: false,
    // antd renders slowly in jsdom, slower still on a busy machine
    testTimeout: 60000,
    include: ['web/src/**/*.test.{ts,tsx}', 'plugins/*/ui/src/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', '**/dist/**', 'build*/**'],
  },
});
