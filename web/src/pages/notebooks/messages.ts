// Messages of the notebooks area (keys start with "notebooks.").
export default {
  en: {
    'notebooks.title': 'Notebooks',
  },
  zh: {
    'notebooks.title': 'Notebook',
  },
};
