// TaskLogs — a task's log, followed while it runs (GET …/tasks/{t}/logs?follow=1).
// Keeps the last 2 MB on screen and scrolls along unless the user scrolled up.
import { Alert, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { followLog } from '@cube/console-sdk';
import { useT } from '@cube/console-sdk';

const KEEP = 2 << 20;

export function TaskLogs({ path }: { path: string }) {
  const t = useT();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [ended, setEnded] = useState(false);
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setText('');
    setError(null);
    setEnded(false);
    return followLog(path, {
      onText: (chunk) => setText((s) => (s.length + chunk.length > KEEP ? (s + chunk).slice(-KEEP) : s + chunk)),
      onEnd: () => setEnded(true),
      onError: setError,
    });
  }, [path]);
  useEffect(() => {
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [text]);
  return (
    <>
      {error && <Alert type="warning" message={error} style={{ marginBottom: 8 }} />}
      <pre ref={box} aria-label={t('pipelines.run.logs')}
        style={{ background: '#141414', color: '#e8e8e8', padding: 8, height: 360, overflow: 'auto', margin: 0, fontSize: 12 }}>
        {text || (ended ? t('pipelines.run.noLogs') : '')}
      </pre>
      {!ended && <Typography.Text type="secondary">{t('pipelines.run.following')}</Typography.Text>}
    </>
  );
}
