// sdk-vite.mjs — the console build's side of @cube/console-sdk, shared by
// vite.config.ts (the console and its tests) and build-plugin-ui.mjs (the
// plugins' pages):
//   sdkEntries()    the shared modules as extra entries of the console build
//   sdkImportMap()  the <script type="importmap"> naming each entry's chunk
//   fromConsole()   bare imports of files outside web/ (plugins' ui/
//                   folders) resolved from web/node_modules
// The list of shared modules is sdk/shared.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const shared = JSON.parse(readFileSync(path.join(webDir, 'sdk', 'shared.json'), 'utf8'));

/** Entry name of a shared module's chunk: "react/jsx-runtime" -> "sdk-react-jsx-runtime". */
const entryName = (spec) => 'sdk-' + spec.replace(/^@/, '').replace(/[^a-zA-Z0-9]+/g, '-');

/** rollup input entries: {"sdk-react": "<web>/src/sdk/shared/react.ts", ...} */
export function sdkEntries() {
  return Object.fromEntries(
    Object.entries(shared.modules).map(([spec, file]) => [entryName(spec), path.join(webDir, file)]),
  );
}

/** Whether `id` is a module the console shares (a page must not bundle it). */
export function isShared(id) {
  return Object.prototype.hasOwnProperty.call(shared.modules, id);
}

/** The vite plugin writing the import map into index.html: the built
 *  chunk of every shared module (dev: its source, served by vite). */
export function sdkImportMap() {
  return {
    name: 'cube-sdk-import-map',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const imports = {};
        for (const [spec, file] of Object.entries(shared.modules)) {
          if (!ctx.bundle) {
            imports[spec] = '/' + file;
            continue;
          }
          const chunk = Object.values(ctx.bundle).find((c) => c.type === 'chunk' && c.isEntry && c.name === entryName(spec));
          if (!chunk) throw new Error(`cube-sdk: no chunk for the shared module ${spec}`);
          imports[spec] = '/' + chunk.fileName;
        }
        return [
          {
            tag: 'script',
            attrs: { type: 'importmap' },
            children: JSON.stringify({ imports }, null, 1),
            injectTo: 'head-prepend',
          },
        ];
      },
    },
  };
}

/** Resolves bare imports of files outside web/ as if web/ imported them,
 *  so the plugins' ui/ folders build and test with the console's
 *  node_modules. */
export function fromConsole() {
  const anchor = path.join(webDir, 'index.html');
  return {
    name: 'cube-resolve-from-console',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || source.startsWith('.') || source.startsWith('/') || source.startsWith('\0')) return null;
      if (source.includes(':') && !source.startsWith('@')) return null;
      const rel = path.relative(webDir, importer);
      if (!rel.startsWith('..')) return null;
      return this.resolve(source, anchor, { ...options, skipSelf: true });
    },
  };
}
