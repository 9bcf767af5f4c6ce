// routes.tsx — the events area: audit and controller events of a project,
// the platform, or one object.
import type { RouteObject } from 'react-router-dom';
import { EventsPage } from './EventsPage';
export { default as messages } from './messages';

export const routes: RouteObject[] = [{ path: '/events', element: <EventsPage /> }];
