// TryIt — sends a request to the service's v2 infer path (on a ready
// replica, through the plugin's test action) and shows the answer: the body starts
// as the example request of the first predictor's Model
// (spec.inference.exampleRequest), editable.
import { Alert, Button, Input, Space, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { errorMessage, useT } from '@cube/console-sdk';
import { getModel, infer, inferUrl } from './api';
import type { Service } from './types';

const modelName = (m: unknown) => (typeof m === 'string' ? m : (m as { name?: string } | undefined)?.name);

export function TryIt({ svc }: { svc: Service }) {
  const t = useT();
  const [body, setBody] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [answer, setAnswer] = useState<{ status: number; predictor: string; answer: unknown; ms: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const model = modelName(svc.spec?.predictors?.[0]?.model);
  useEffect(() => {
    if (!model || !svc.metadata.project) return;
    getModel(svc.metadata.project, model).then((m) => {
      const ex = m.spec?.inference?.exampleRequest;
      if (ex !== undefined) setBody((b) => b || JSON.stringify(ex, null, 2));
      else setNote(t('serving.try.noExample', { model }));
    }, (e) => setNote(errorMessage(e)));
  }, [model, svc.metadata.project, t]);

  const send = async () => {
    setError(null);
    setAnswer(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return setError(t('serving.try.badJson'));
    }
    setBusy(true);
    try {
      setAnswer(await infer(svc, parsed));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Typography.Text>{t('serving.try.to')} <Typography.Text code>{`POST ${inferUrl(svc)}`}</Typography.Text></Typography.Text>
      {note && <Alert type="info" message={note} />}
      <Input.TextArea rows={8} value={body} onChange={(e) => setBody(e.target.value)} aria-label={t('serving.try.body')}
        placeholder='{"inputs": [{"name": "input-0", "datatype": "FP64", "shape": [1, 4], "data": [5.1, 3.5, 1.4, 0.2]}]}'
        style={{ fontFamily: 'monospace' }} />
      <Button type="primary" onClick={send} loading={busy} disabled={!body.trim()}>{t('serving.try.send')}</Button>
      {error && <Alert type="error" message={error} />}
      {answer && (
        <div data-testid="try-answer">
          <Space wrap>
            <Tag color={answer.status < 300 ? 'green' : 'red'}>{`HTTP ${answer.status}`}</Tag>
            <Typography.Text type="secondary">{`${answer.predictor} · ${answer.ms.toFixed(1)} ms`}</Typography.Text>
          </Space>
          <pre style={{ background: 'rgba(127,127,127,0.08)', padding: 12, overflow: 'auto', maxHeight: 360, margin: '8px 0 0' }}>
            {typeof answer.answer === 'string' ? answer.answer : JSON.stringify(answer.answer, null, 2)}</pre>
        </div>
      )}
    </Space>
  );
}
