import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { I18nProvider, registerMessages, storedLang, useI18n } from '.';

registerMessages({ en: { 'test.hello': 'Hello {name}', 'test.only': 'English only' }, zh: { 'test.hello': '你好 {name}' } });

function Probe() {
  const { t, lang, setLang } = useI18n();
  return (
    <div>
      <span data-testid="hello">{t('test.hello', { name: 'Ada' })}</span>
      <span data-testid="only">{t('test.only')}</span>
      <span data-testid="missing">{t('test.missing')}</span>
      <span data-testid="late">{t('late.key')}</span>
      <button onClick={() => setLang(lang === 'en' ? 'zh' : 'en')}>switch</button>
    </div>
  );
}

describe('i18n', () => {
  it('switches language, falls back to English, and remembers the choice', () => {
    localStorage.setItem('cube.lang', 'en');
    const { unmount } = render(<I18nProvider><Probe /></I18nProvider>);
    expect(screen.getByTestId('hello')).toHaveTextContent('Hello Ada');
    act(() => screen.getByText('switch').click());
    expect(screen.getByTestId('hello')).toHaveTextContent('你好 Ada');
    expect(screen.getByTestId('only')).toHaveTextContent('English only');
    expect(screen.getByTestId('missing')).toHaveTextContent('test.missing');
    expect(localStorage.getItem('cube.lang')).toBe('zh');
    expect(document.documentElement.lang).toBe('zh-CN');
    unmount();
    // a new page load starts in the remembered language
    expect(storedLang()).toBe('zh');
    render(<I18nProvider><Probe /></I18nProvider>);
    expect(screen.getByTestId('hello')).toHaveTextContent('你好 Ada');
  });

  it('re-renders when an area registers its messages later', () => {
    render(<I18nProvider initial="en"><Probe /></I18nProvider>);
    expect(screen.getByTestId('late')).toHaveTextContent('late.key');
    act(() => registerMessages({ en: { 'late.key': 'Loaded late' }, zh: { 'late.key': '后加载' } }));
    expect(screen.getByTestId('late')).toHaveTextContent('Loaded late');
  });

  it('ignores a stored value that is not a language', () => {
    localStorage.setItem('cube.lang', 'fr');
    expect(['en', 'zh']).toContain(storedLang());
  });
});
