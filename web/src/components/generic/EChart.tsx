// EChart — an ECharts option drawn with the console's shared echarts
// (imported when a chart is first shown: it is large), redrawn in place
// when the option changes, resized with the window. Exported to plugin
// pages by the SDK (since 1.2).
import { useEffect, useRef } from 'react';

type Chart = { setOption(o: unknown, notMerge?: boolean): void; resize(): void; dispose(): void };

export function EChart({ option, height = 320, label }: { option: object; height?: number; label?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart>();
  const latest = useRef(option);
  latest.current = option;
  useEffect(() => {
    let gone = false;
    const resize = () => chart.current?.resize();
    import('echarts').then((echarts) => {
      if (gone || !box.current) return;
      chart.current = echarts.init(box.current) as Chart;
      chart.current.setOption(latest.current, true);
      window.addEventListener('resize', resize);
    });
    return () => {
      gone = true;
      window.removeEventListener('resize', resize);
      chart.current?.dispose();
      chart.current = undefined;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, true);
  }, [option]);
  return <div ref={box} role="img" aria-label={label} style={{ height, width: '100%' }} />;
}
