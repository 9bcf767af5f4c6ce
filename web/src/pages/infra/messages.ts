// Messages of the infra area (keys start with "infra.").
export default {
  en: {
    'infra.title': 'Infrastructure',
  },
  zh: {
    'infra.title': '基础设施',
  },
};
