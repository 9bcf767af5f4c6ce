// RoutePage — a path no console area owns: the plugin page whose route
// (cube_ui.h, since ABI 1.5) owns it, e.g. /p/demo/pipelines/etl for the
// pipeline plugin's page at /p/:project/pipelines; else 404.
import { useLocation } from 'react-router-dom';
import { useAuth } from '../../auth/AuthContext';
import { registerMessages } from '../../i18n';
import { PageSkeleton } from '../../shell/PageSkeleton';
import { pluginPageAt, usePluginEntries } from '../../shell/pluginPages';
import { NotFound } from '../common/NotFound';
import messages from './messages';
import { PluginPage } from './PluginPage';

registerMessages(messages);

export default function RoutePage() {
  const { me } = useAuth();
  const { pathname } = useLocation();
  const entries = usePluginEntries(me?.user.name ?? '');
  if (!entries) return <PageSkeleton />;
  const entry = pluginPageAt(entries, pathname);
  return entry ? <PluginPage entry={entry} /> : <NotFound />;
}
