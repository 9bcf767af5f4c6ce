// Types of sdk-vite.mjs for vite.config.ts.
import type { Plugin } from 'vite';
export declare const webDir: string;
export declare const shared: { sdk: string; version: string; modules: Record<string, string>; versions: Record<string, string> };
export declare function sdkEntries(): Record<string, string>;
export declare function isShared(id: string): boolean;
export declare function sdkImportMap(): Plugin;
export declare function fromConsole(): Plugin;
