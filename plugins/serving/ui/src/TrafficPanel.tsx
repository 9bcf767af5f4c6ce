// TrafficPanel — a slider per predictor whose percents must add up to 100
// (checked here before sending; the server's 422 shown on the field it
// names) and the mirror: a predictor without a share and the percent of
// requests copied to it. Saving PATCHes spec.traffic and spec.mirror.
import { Alert, Button, Form, InputNumber, Select, Slider, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { ApiError, errorMessage, useT } from '@cube/console-sdk';
import { patchSpec } from './api';
import { setShare, sharesOf, total, trafficProblem } from './traffic';
import type { Service, Share } from './types';

export function TrafficPanel({ svc }: { svc: Service }) {
  const t = useT();
  const [shares, setShares] = useState<Share[]>(() => sharesOf(svc));
  const [mirror, setMirror] = useState<Share | null>(svc.spec?.mirror ?? null);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const rev = svc.metadata.generation ?? svc.status?.revision;
  // a new revision from elsewhere resets the editor
  useEffect(() => {
    setShares(sharesOf(svc));
    setMirror(svc.spec?.mirror ?? null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rev, svc.metadata.name]);

  const problem = trafficProblem(shares, mirror);
  const sum = total(shares);
  const onTraffic = fieldError && !fieldError.field.startsWith('spec.mirror');
  const save = async () => {
    setFieldError(null);
    setSaved(false);
    setBusy(true);
    try {
      await patchSpec(svc.metadata.project!, svc.metadata.name, {
        traffic: shares, ...(mirror?.predictor ? { mirror } : { mirror: null as unknown as undefined }) });
      setSaved(true);
    } catch (e) {
      setFieldError({ field: e instanceof ApiError ? e.field ?? 'spec.traffic' : 'spec.traffic', message: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };
  const others = (svc.spec?.predictors ?? []).map((p) => p.name);

  return (
    <Form layout="vertical" style={{ maxWidth: 640 }}>
      <Form.Item label={t('serving.traffic.title')} required
        validateStatus={problem === 'serving.traffic.notHundred' || onTraffic ? 'error' : undefined}
        help={problem === 'serving.traffic.notHundred' ? t('serving.traffic.notHundred', { sum })
          : onTraffic ? `${fieldError!.field}: ${fieldError!.message}` : t('serving.traffic.help')}>
        {shares.map((s) => (
          <Space key={s.predictor} style={{ width: '100%' }} align="center" data-traffic={s.predictor}>
            <Typography.Text style={{ display: 'inline-block', width: 80 }}>{s.predictor}</Typography.Text>
            <Slider style={{ width: 'min(320px, 40vw)' }} min={0} max={100} value={s.percent}
              aria-label={t('serving.traffic.share', { predictor: s.predictor })}
              onChange={(v: number) => { setSaved(false); setShares(setShare(shares, s.predictor, v)); }} />
            <InputNumber min={0} max={100} precision={0} value={s.percent} addonAfter="%" style={{ width: 110 }}
              aria-label={t('serving.traffic.percent', { predictor: s.predictor })}
              onChange={(v) => { setSaved(false); setShares(setShare(shares, s.predictor, Number(v ?? 0))); }} />
          </Space>
        ))}
      </Form.Item>
      <Form.Item label={t('serving.mirror.title')}
        validateStatus={problem === 'serving.mirror.self' || (fieldError && !onTraffic) ? 'error' : undefined}
        help={problem === 'serving.mirror.self' ? t('serving.mirror.self')
          : fieldError && !onTraffic ? `${fieldError.field}: ${fieldError.message}` : t('serving.mirror.help')}>
        <Space wrap>
          <Select style={{ width: 160 }} allowClear placeholder={t('serving.mirror.none')} value={mirror?.predictor}
            aria-label={t('serving.mirror.predictor')}
            options={others.map((n) => ({ value: n, label: n }))}
            onChange={(p?: string) => setMirror(p ? { predictor: p, percent: mirror?.percent ?? 10 } : null)} />
          <InputNumber min={0} max={100} precision={0} addonAfter="%" style={{ width: 110 }} disabled={!mirror}
            aria-label={t('serving.mirror.percent')} value={mirror?.percent}
            onChange={(v) => mirror && setMirror({ ...mirror, percent: Number(v ?? 0) })} />
        </Space>
      </Form.Item>
      <Space>
        <Button type="primary" onClick={save} loading={busy} disabled={!!problem}>{t('serving.traffic.save')}</Button>
        {saved && <Alert type="success" showIcon message={t('serving.traffic.saved')} />}
      </Space>
    </Form>
  );
}
