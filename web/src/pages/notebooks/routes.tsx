// routes.tsx — the notebooks area's pages (absolute paths, under the prefixes
// src/routes.tsx gives this area). Placeholder until the area is built.
import type { RouteObject } from 'react-router-dom';
import { ComingSoon } from '../common/ComingSoon';
import { useT } from '../../i18n';
export { default as messages } from './messages';

function Placeholder() {
  const t = useT();
  return <ComingSoon title={t('notebooks.title')} />;
}

export const routes: RouteObject[] = [
  { path: '/p/:project/notebooks/*', element: <Placeholder /> },
];
