// EChart — an ECharts option (a task's *.echarts.json) drawn with echarts;
// its own chunk, loaded only when a run shows such a result.
import ReactECharts from 'echarts-for-react';

export default function EChart({ option }: { option: Record<string, unknown> }) {
  return <ReactECharts option={option} style={{ height: 360, width: '100%' }} notMerge lazyUpdate />;
}
