// Charts — the service's requests/s and errors, p50/p99 latency, requests
// in flight and ready replicas from GET …/samples, polled every 5 s (the
// plugin samples at that rate) while shown.
import { Alert, Col, Row } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { EChart, errorMessage, useT } from '@cube/console-sdk';
import { samples } from './api';
import { chartOptions } from './charts';
import type { Samples, Service } from './types';

export function Charts({ svc }: { svc: Service }) {
  const t = useT();
  const [data, setData] = useState<Samples | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { project = '', name } = svc.metadata;
  useEffect(() => {
    let gone = false;
    const load = () => samples(project, name).then((s) => { if (!gone) { setData(s); setError(null); } },
      (e) => !gone && setError(errorMessage(e)));
    load();
    const timer = window.setInterval(load, 5000);
    return () => { gone = true; window.clearInterval(timer); };
  }, [project, name]);
  const o = useMemo(() => chartOptions(data, t), [data, t]);
  return (
    <>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      {data && !data.t.length && <Alert type="info" message={t('serving.chart.empty')} style={{ marginBottom: 8 }} />}
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}><EChart option={o.traffic} height={240} label={t('serving.chart.traffic')} /></Col>
        <Col xs={24} lg={12}><EChart option={o.latency} height={240} label={t('serving.chart.latency')} /></Col>
        <Col xs={24} lg={12}><EChart option={o.inflight} height={240} label={t('serving.chart.inflight')} /></Col>
        <Col xs={24} lg={12}><EChart option={o.replicas} height={240} label={t('serving.chart.replicas')} /></Col>
      </Row>
    </>
  );
}
