/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The console is served by cubed from web/dist (SPA fallback to index.html).
// `npm run dev` proxies the API to a cubed on CUBE_API (default :8080).
const api = process.env.CUBE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true, // read by scripts/bundle-report.mjs to size the first page
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      output: {
        // React and the router are needed by every page: one long-cached chunk.
        manualChunks: { react: ['react', 'react-dom', 'react-router-dom'] },
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
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['src/test/setup.ts'],
    css: false,
    // antd renders slowly in jsdom, slower still on a busy machine
    testTimeout: 60000,
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
