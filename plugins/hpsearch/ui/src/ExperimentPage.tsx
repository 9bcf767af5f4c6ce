// ExperimentPage — one experiment: its phase, best trial and counts, stop
// and resume; tabs for the trials table, the charts (best so far with each
// trial's value, intermediate curves of the selected trials, parameters vs
// value), a trial's log and the spec. Polled every 2 s while it runs.
import { Alert, Button, Descriptions, message, Select, Space, Tabs, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, EChart, errorMessage, LogFollow, useParams, useT } from '@cube/console-sdk';
import { ended, experimentsPath, jobLogsPath, listTrials, resumeExperiment, stopExperiment } from './api';
import { curvesOption, parallelOption, progressOption } from './charts';
import { fmt, PhaseTag } from './phase';
import { TrialsTable } from './TrialsTable';
import type { Experiment, Trial, TrialList } from './types';

const POLL_MS = 2000;

function useExperiment(project: string, name: string) {
  const [exp, setExp] = useState<Experiment | null>(null);
  const [trials, setTrials] = useState<TrialList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const [e, tl] = await Promise.all([api.get<Experiment>(experimentsPath(project, name)), listTrials(project, name)]);
      setExp(e);
      setTrials(tl);
      setError(null);
      return e;
    } catch (e) {
      setError(errorMessage(e));
      return null;
    }
  }, [project, name]);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let gone = false;
    const tick = async () => {
      const e = await load();
      if (!gone && !(e && ended(e.status?.phase))) timer = setTimeout(tick, POLL_MS);
    };
    tick();
    return () => {
      gone = true;
      if (timer) clearTimeout(timer);
    };
  }, [load]);
  return { exp, trials, error, reload: load };
}

export default function ExperimentPage() {
  const t = useT();
  const { project = '', name = '' } = useParams();
  const { exp, trials, error, reload } = useExperiment(project, name);
  const [selected, setSelected] = useState<number[]>([]);
  const [tab, setTab] = useState('trials');
  const [logTrial, setLogTrial] = useState<number | null>(null);
  const items = useMemo(() => trials?.items ?? [], [trials]);
  const direction = trials?.direction ?? 'maximize';
  const labels = { trial: t('hpsearch.chart.trial'), value: trials?.metric ?? 'default', best: t('hpsearch.chart.best'), step: t('hpsearch.chart.step') };
  const progress = useMemo(() => progressOption(items, direction, labels), [items, direction]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = selected.length ? items.filter((x) => selected.includes(x.trial)) : items.slice(0, 10);
  const curves = useMemo(() => curvesOption(shown, labels), [shown.map((x) => x.trial).join(','), items]); // eslint-disable-line react-hooks/exhaustive-deps
  const parallel = useMemo(() => parallelOption(items, labels), [items]); // eslint-disable-line react-hooks/exhaustive-deps
  const act = (p: Promise<unknown>) => p.then(() => reload()).catch((e) => message.error(errorMessage(e)));
  const st = exp?.status ?? {};
  const logJob = items.find((x) => x.trial === logTrial)?.job;

  return (
    <div style={{ padding: 24 }}>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
        <Space>
          <Typography.Title level={3} style={{ margin: 0 }}>{name}</Typography.Title>
          <PhaseTag phase={st.phase} />
        </Space>
        {exp && (ended(st.phase)
          ? <Button onClick={() => act(resumeExperiment(project, name))}>{t('hpsearch.action.resume')}</Button>
          : <Button danger onClick={() => act(stopExperiment(project, name))}>{t('hpsearch.action.stop')}</Button>)}
      </Space>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      {st.message && <Alert type={st.phase === 'Failed' ? 'error' : 'info'} message={st.message} style={{ marginBottom: 8 }} />}
      <Descriptions size="small" column={4} style={{ marginBottom: 8 }}>
        <Descriptions.Item label={t('hpsearch.field.tuner')}>{exp?.spec?.tuner?.name ?? 'tpe'}</Descriptions.Item>
        <Descriptions.Item label={t('hpsearch.field.objective')}>{`${trials?.metric ?? 'default'} (${t(`hpsearch.direction.${direction}`)})`}</Descriptions.Item>
        <Descriptions.Item label={t('hpsearch.field.trials')}>
          {`${st.trials?.Succeeded ?? 0} / ${st.trials?.total ?? 0} / ${exp?.spec?.maxTrials ?? 10}`}</Descriptions.Item>
        <Descriptions.Item label={t('hpsearch.field.best')}>
          {st.best ? `#${st.best.trial}: ${fmt(st.best.value)} ${JSON.stringify(st.best.parameters)}` : '—'}</Descriptions.Item>
      </Descriptions>
      <Tabs activeKey={tab} onChange={setTab} items={[
        { key: 'trials', label: t('hpsearch.tab.trials'), children:
          <TrialsTable trials={items} direction={direction} selected={selected} onSelect={setSelected}
            onLogs={(x: Trial) => { setLogTrial(x.trial); setTab('logs'); }} /> },
        { key: 'charts', label: t('hpsearch.tab.charts'), children: (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Typography.Title level={5}>{t('hpsearch.chart.progress')}</Typography.Title>
            <EChart option={progress} label={t('hpsearch.chart.progress')} />
            <Typography.Title level={5}>{t('hpsearch.chart.curves')}</Typography.Title>
            <Typography.Text type="secondary">{t('hpsearch.chart.curvesHelp')}</Typography.Text>
            <EChart option={curves} label={t('hpsearch.chart.curves')} />
            <Typography.Title level={5}>{t('hpsearch.chart.parallel')}</Typography.Title>
            <EChart option={parallel} height={380} label={t('hpsearch.chart.parallel')} />
          </Space>) },
        { key: 'logs', label: t('hpsearch.tab.logs'), children: (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Select aria-label={t('hpsearch.field.trial')} placeholder={t('hpsearch.logs.pick')} style={{ width: 240 }}
              value={logTrial ?? undefined} onChange={setLogTrial}
              options={items.map((x) => ({ value: x.trial, label: `#${x.trial} ${x.job}` }))} />
            {logJob && <LogFollow key={logJob} path={jobLogsPath(project, logJob)} follow height={420} />}
          </Space>) },
        { key: 'spec', label: t('hpsearch.tab.spec'), children:
          <pre style={{ background: '#fafafa', padding: 12, overflow: 'auto' }}>{JSON.stringify(exp?.spec ?? {}, null, 2)}</pre> },
      ]} />
    </div>
  );
}
