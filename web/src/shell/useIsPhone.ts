// useIsPhone — true while the window is narrower than antd's md breakpoint
// (768 px): the shell then shows the sidebar as a drawer and a one-line
// header. Follows the window as it is resized. Where matchMedia says
// nothing (jsdom), a desktop.
import { useEffect, useState } from 'react';

export const PHONE_QUERY = '(max-width: 767.98px)';

function matches(): boolean {
  return typeof window !== 'undefined' && !!window.matchMedia && !!window.matchMedia(PHONE_QUERY)?.matches;
}

export function useIsPhone(): boolean {
  const [phone, setPhone] = useState(matches);
  useEffect(() => {
    if (!window.matchMedia) return;
    const mq = window.matchMedia(PHONE_QUERY);
    const on = () => setPhone(mq.matches);
    mq.addEventListener?.('change', on);
    on();
    return () => mq.removeEventListener?.('change', on);
  }, []);
  return phone;
}
