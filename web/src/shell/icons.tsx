// icons.tsx — the icons the sidebar can show, by name. Only these are
// bundled (importing all of @ant-design/icons would weigh megabytes); a
// plugin entry naming another icon gets the default one.
import {
  AppstoreOutlined,
  BellOutlined,
  BranchesOutlined,
  ClusterOutlined,
  CodeOutlined,
  DatabaseOutlined,
  ExperimentOutlined,
  HomeOutlined,
  KeyOutlined,
  ProjectOutlined,
  RocketOutlined,
  SettingOutlined,
  UserOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';

const ICONS: Record<string, ReactNode> = {
  AppstoreOutlined: <AppstoreOutlined />,
  BellOutlined: <BellOutlined />,
  BranchesOutlined: <BranchesOutlined />,
  ClusterOutlined: <ClusterOutlined />,
  CodeOutlined: <CodeOutlined />,
  DatabaseOutlined: <DatabaseOutlined />,
  ExperimentOutlined: <ExperimentOutlined />,
  HomeOutlined: <HomeOutlined />,
  KeyOutlined: <KeyOutlined />,
  ProjectOutlined: <ProjectOutlined />,
  RocketOutlined: <RocketOutlined />,
  SettingOutlined: <SettingOutlined />,
  UserOutlined: <UserOutlined />,
};

/** Group icons, by group name. */
const GROUP_ICONS: Record<string, string> = {
  Training: 'ExperimentOutlined',
  Platform: 'SettingOutlined',
  Infrastructure: 'ClusterOutlined',
  Pipelines: 'BranchesOutlined',
  Notebooks: 'CodeOutlined',
  Serving: 'RocketOutlined',
};

export function iconByName(name?: string): ReactNode {
  return name ? ICONS[name] ?? ICONS.AppstoreOutlined : undefined;
}

export function groupIcon(group: string): ReactNode {
  return ICONS[GROUP_ICONS[group] ?? 'AppstoreOutlined'];
}
