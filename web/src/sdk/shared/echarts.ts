// The shared module "echarts" (the whole library; a page that draws charts
// imports it, the console itself does not load it).
// @ts-expect-error -- echarts' types say "export =", its ES build exports names
export * from 'echarts';
