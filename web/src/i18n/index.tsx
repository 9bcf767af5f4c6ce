// i18n — English and 中文 for every string of the console.
//
// There is no shared dictionary: each area of the console ships its own
// messages (e.g. pages/jobs/messages.ts exporting {en: {...}, zh: {...}})
// and registers them when it loads. Keys are flat and start with the
// area's name ("jobs.stop"), so areas never collide. A missing 中文 string
// falls back to English, a missing key shows the key itself.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

export type Lang = 'en' | 'zh';
export const LANGS: Lang[] = ['en', 'zh'];
export type Messages = Record<string, string>;
export interface MessageBundle {
  en: Messages;
  zh?: Messages;
}

const STORAGE_KEY = 'cube.lang';
const dict: Record<Lang, Messages> = { en: {}, zh: {} };
const listeners = new Set<() => void>();
let version = 0;

/** Adds an area's messages (idempotent; a later bundle overrides keys). */
export function registerMessages(bundle: MessageBundle): void {
  Object.assign(dict.en, bundle.en);
  if (bundle.zh) Object.assign(dict.zh, bundle.zh);
  version++;
  listeners.forEach((l) => l());
}

/** Fills {name} placeholders from vars. */
function format(s: string, vars?: Record<string, string | number>): string {
  if (!vars) return s;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** Translates outside React (e.g. in helpers); prefer useT() in components. */
export function translate(lang: Lang, key: string, vars?: Record<string, string | number>): string {
  const s = dict[lang][key] ?? dict.en[key] ?? key;
  return format(s, vars);
}

export function storedLang(): Lang {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    if (v === 'en' || v === 'zh') return v;
  } catch {
    /* storage disabled */
  }
  return typeof navigator !== 'undefined' && navigator.language?.startsWith('zh') ? 'zh' : 'en';
}

export type TFunction = (key: string, vars?: Record<string, string | number>) => string;

interface I18nState {
  lang: Lang;
  setLang(l: Lang): void;
  t: TFunction;
}

const I18nContext = createContext<I18nState | null>(null);

export function I18nProvider({ children, initial }: { children: ReactNode; initial?: Lang }) {
  const [lang, setLangState] = useState<Lang>(() => initial ?? storedLang());
  const [, setVersion] = useState(version);
  useEffect(() => {
    const l = () => setVersion(version);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  }, [lang]);
  const setLang = useCallback((l: Lang) => {
    try {
      localStorage.setItem(STORAGE_KEY, l);
    } catch {
      /* storage disabled: this tab only */
    }
    setLangState(l);
  }, []);
  const t = useCallback<TFunction>((key, vars) => translate(lang, key, vars), [lang, version]); // version: re-translate after registerMessages
  const value = useMemo(() => ({ lang, setLang, t }), [lang, setLang, t]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nState {
  const s = useContext(I18nContext);
  if (!s) throw new Error('useI18n outside I18nProvider');
  return s;
}

/** The translate function of the current language. */
export function useT(): TFunction {
  return useI18n().t;
}

/** Whether any language has `key` (for labels with a computed fallback). */
export function hasMessage(key: string): boolean {
  return key in dict.en || key in dict.zh;
}

/** t(key) when some area registered it, else `fallback`. */
export function tOr(t: TFunction, key: string, fallback: string): string {
  return hasMessage(key) ? t(key) : fallback;
}
