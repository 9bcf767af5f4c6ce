// Messages of the jobs area (keys start with "jobs.").
export default {
  en: {
    'jobs.title': 'Jobs',
  },
  zh: {
    'jobs.title': '任务',
  },
};
