// ResultViewer — a task's result files: images inline, CSV as a table
// (first 500 rows), JSON pretty-printed, ECharts options drawn, markdown
// and text as text (never as HTML). Files load when shown.
import { Alert, Card, Empty, Spin, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { apiFetch, EChart, errorFromResponse, errorMessage } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';
import { parseCsv } from './csv';
import type { ResultFile } from './types';

const MAX_TEXT = 1 << 20;

function useText(url: string) {
  const [state, setState] = useState<{ text?: string; error?: string }>({});
  useEffect(() => {
    const ctl = new AbortController();
    apiFetch(url, { signal: ctl.signal, headers: { Accept: '*/*' } })
      .then(async (res) => {
        if (!res.ok) throw await errorFromResponse(res);
        const text = await res.text();
        setState({ text: text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text });
      })
      .catch((e) => !ctl.signal.aborted && setState({ error: errorMessage(e) }));
    return () => ctl.abort();
  }, [url]);
  return state;
}

function TextResult({ file }: { file: ResultFile }) {
  const t = useT();
  const { text, error } = useText(file.url);
  if (error) return <Alert type="error" message={error} />;
  if (text === undefined) return <Spin />;
  if (file.type === 'csv') {
    const table = parseCsv(text);
    const columns = table.header.map((h, i) => ({ title: h, dataIndex: String(i), key: String(i) }));
    const data = table.rows.map((r, k) => ({ key: k, ...Object.fromEntries(r.map((v, i) => [String(i), v])) }));
    return (
      <>
        <Table size="small" columns={columns} dataSource={data} scroll={{ x: true }} pagination={{ pageSize: 20 }} />
        {table.truncated && <Typography.Text type="secondary">{t('pipelines.results.truncated', { n: table.rows.length })}</Typography.Text>}
      </>
    );
  }
  if (file.type === 'json' || file.type === 'echarts') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return <Alert type="warning" message={t('pipelines.results.badJson')} />;
    }
    if (file.type === 'echarts' && value && typeof value === 'object')
      return <EChart option={value as Record<string, unknown>} height={360} />;
    return <pre style={{ maxHeight: 400, overflow: 'auto', margin: 0 }}>{JSON.stringify(value, null, 2)}</pre>;
  }
  return <pre style={{ maxHeight: 400, overflow: 'auto', whiteSpace: 'pre-wrap', margin: 0 }}>{text}</pre>;
}

export function ResultViewer({ files }: { files: ResultFile[] | undefined }) {
  const t = useT();
  if (!files?.length) return <Empty description={t('pipelines.results.none')} />;
  return (
    <>
      {files.map((f) => (
        <Card key={f.name} size="small" title={f.name} style={{ marginBottom: 8 }}
          extra={<a href={f.url} target="_blank" rel="noreferrer">{t('pipelines.results.open')}</a>}>
          {f.type === 'image' ? <img src={f.url} alt={f.name} style={{ maxWidth: '100%' }} /> : <TextResult file={f} />}
        </Card>
      ))}
    </>
  );
}
