// routes.tsx — the infra area's pages (absolute paths, under the prefixes
// src/routes.tsx gives this area). Placeholder until the area is built.
import type { RouteObject } from 'react-router-dom';
import { ComingSoon } from '../common/ComingSoon';
import { useT } from '../../i18n';
export { default as messages } from './messages';

function Placeholder() {
  const t = useT();
  return <ComingSoon title={t('infra.title')} />;
}

export const routes: RouteObject[] = [
  { path: '/nodes', element: <Placeholder /> },
  { path: '/nodes/:name', element: <Placeholder /> },
  { path: '/pools', element: <Placeholder /> },
  { path: '/pools/:name', element: <Placeholder /> },
];
