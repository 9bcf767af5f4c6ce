// Messages of the events area (keys start with "events.").
export default {
  en: {
    'events.title': 'Events',
  },
  zh: {
    'events.title': '事件',
  },
};
