// Messages of the kinds area (keys start with "kinds.").
export default {
  en: {
    'kinds.title': 'Resources',
  },
  zh: {
    'kinds.title': '资源',
  },
};
