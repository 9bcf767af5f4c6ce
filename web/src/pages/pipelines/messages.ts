// Messages of the pipelines area (keys start with "pipelines.").
export default {
  en: {
    'pipelines.title': 'Pipelines',
  },
  zh: {
    'pipelines.title': '流水线',
  },
};
