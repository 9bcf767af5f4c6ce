// Messages of the events area (keys start with "events.").
export default {
  en: {
    'events.title': 'Events',
    'events.subtitle': 'Audit events (every write, and every refused one) and events of controllers and plugins, newest first',
    'events.scope': 'Scope',
    'events.scope.project': 'Project {project}',
    'events.scope.platform': 'Whole platform',
    'events.noProject': 'Choose a project to see its events.',
    'events.object': 'Events of {kind} {name}',
  },
  zh: {
    'events.title': '事件',
    'events.subtitle': '审计事件（每次写入及被拒绝的写入）以及控制器和插件的事件，最新的在前',
    'events.scope': '范围',
    'events.scope.project': '项目 {project}',
    'events.scope.platform': '整个平台',
    'events.noProject': '请选择项目以查看其事件。',
    'events.object': '{kind} {name} 的事件',
  },
};
