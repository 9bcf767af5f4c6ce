// Messages of the plugin area (keys start with "plugin.").
export default {
  en: {
    'plugin.title': 'Plugin page',
    'plugin.notFound': 'No console page "{id}" of plugin "{plugin}" is registered.',
    'plugin.noModule': 'This entry has no page module.',
    'plugin.loadFailed': 'The page of plugin "{plugin}" could not be loaded',
    'plugin.noMount': 'The module does not export a mount(element, context) function.',
    'plugin.mountFailed': 'The page of plugin "{plugin}" failed',
  },
  zh: {
    'plugin.title': '插件页面',
    'plugin.notFound': '没有注册插件 "{plugin}" 的控制台页面 "{id}"。',
    'plugin.noModule': '此菜单项没有页面模块。',
    'plugin.loadFailed': '无法加载插件 "{plugin}" 的页面',
    'plugin.noMount': '该模块没有导出 mount(element, context) 函数。',
    'plugin.mountFailed': '插件 "{plugin}" 的页面出错',
  },
};
