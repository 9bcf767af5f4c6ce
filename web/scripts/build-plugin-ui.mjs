// build-plugin-ui.mjs <ui dir> <out dir> [depfile] — builds a plugin's console page
// (plugins/<name>/ui: src/page.tsx, tsconfig.json) into <out dir>/page.js,
// one ES module built against @cube/console-sdk: the modules the console
// shares (sdk/shared.json) stay imports, resolved by the console's import
// map; everything else the page uses is bundled in, CSS included (a page
// imports it with "?inline" and adds it itself). The page is type-checked
// against the published SDK declaration (sdk/index.d.ts) first. With a
// depfile, writes every file the page was built from into it (for ninja).
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { fromConsole, isShared, shared, webDir } from './sdk-vite.mjs';

const [uiArg, outArg, depfile] = process.argv.slice(2);
if (!uiArg || !outArg) {
  console.error('usage: build-plugin-ui.mjs <ui dir> <out dir>');
  process.exit(2);
}
const uiDir = path.resolve(uiArg);
const outDir = path.resolve(outArg);
const entry = path.join(uiDir, 'src', 'page.tsx');
if (!existsSync(entry)) {
  console.error(`build-plugin-ui: ${entry}: no such file`);
  process.exit(2);
}

const tsc = path.join(webDir, 'node_modules', 'typescript', 'bin', 'tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', uiDir, '--noEmit'], { stdio: 'inherit' });
} catch {
  console.error(`build-plugin-ui: ${uiDir}: type errors (above)`);
  process.exit(1);
}

/** A shared package's other entry points would bundle a second copy. */
const packages = Object.keys(shared.modules).map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]));
function external(id) {
  if (isShared(id)) return true;
  const pkg = packages.find((p) => id.startsWith(p + '/'));
  if (pkg) throw new Error(`build-plugin-ui: "${id}" is part of the shared "${pkg}"; import one of ${Object.keys(shared.modules).join(', ')}`);
  return false;
}

/** Writes "<out>/page.js: <every module file>" for ninja. */
function depfilePlugin() {
  return {
    name: 'cube-depfile',
    generateBundle() {
      if (!depfile) return;
      const files = [...this.getModuleIds()]
        .map((id) => id.split('?')[0])
        .filter((f) => path.isAbsolute(f) && !f.includes('/node_modules/') && existsSync(f));
      files.push(path.join(webDir, 'package-lock.json'));
      files.push(path.join(uiDir, 'tsconfig.json'), path.join(webDir, 'sdk', 'index.d.ts'), path.join(webDir, 'sdk', 'shared.json'));
      const esc = (f) => f.replace(/([ #$])/g, '\\$1');
      writeFileSync(depfile, `${esc(path.join(outDir, 'page.js'))}: ${[...new Set(files)].map(esc).join(' \\\n  ')}\n`);
    },
  };
}

await build({
  configFile: false,
  root: uiDir,
  logLevel: 'warn',
  mode: 'production',
  plugins: [react(), fromConsole(), depfilePlugin()],
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir,
    emptyOutDir: false, // the build system's folder: only page.js is ours
    target: 'es2020',
    minify: true,
    copyPublicDir: false,
    reportCompressedSize: false,
    lib: { entry, formats: ['es'], fileName: () => 'page.js' },
    rollupOptions: {
      external,
      // one file: the plugin's asset dir holds page.js alone
      output: { inlineDynamicImports: true },
    },
  },
});
console.log(`build-plugin-ui: ${path.relative(process.cwd(), path.join(outDir, 'page.js'))}`);
