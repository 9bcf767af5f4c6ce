// EChart — an ECharts option (a task's *.echarts.json) drawn with the
// console's shared echarts, imported only when a run shows such a result.
import { useEffect, useRef } from 'react';

export default function EChart({ option }: { option: Record<string, unknown> }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let chart: { setOption(o: unknown): void; resize(): void; dispose(): void } | undefined;
    let gone = false;
    const resize = () => chart?.resize();
    import('echarts').then((echarts) => {
      if (gone || !box.current) return;
      chart = echarts.init(box.current);
      chart.setOption(option);
      window.addEventListener('resize', resize);
    });
    return () => {
      gone = true;
      window.removeEventListener('resize', resize);
      chart?.dispose();
    };
  }, [option]);
  return <div ref={box} style={{ height: 360, width: '100%' }} />;
}
