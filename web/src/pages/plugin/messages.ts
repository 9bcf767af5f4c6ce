// Messages of the plugin area (keys start with "plugin.").
export default {
  en: {
    'plugin.title': 'Plugin page',
  },
  zh: {
    'plugin.title': '插件页面',
  },
};
