// LogFollow — an object's log stream (…/{name}/logs), per replica, with
// "follow": while on, new output streams in and the view stays at the
// bottom; off, the stream stops and what arrived stays. Turning follow on
// again resumes from the byte offset already shown. Keeps the last 1 MiB.

import { useEffect, useRef, useState } from 'react';
import { Select, Space, Switch, Typography } from 'antd';
import { followLog } from '../../api/logs';
import { useT } from '../../i18n';
import './messages';

const KEEP = 1 << 20;

interface Props {
  /** The …/logs URL of the object. */
  path: string;
  /** Replicas to choose from; 0 or absent: no replica parameter. */
  replicas?: number;
  /** Follow at first (default true). */
  follow?: boolean;
  /** Extra query (e.g. {stream: 'stdout'}). */
  query?: Record<string, string | number>;
  height?: number;
}

export function LogFollow({ path, replicas = 0, follow: followInit = true, query, height = 420 }: Props) {
  const t = useT();
  const [replica, setReplica] = useState(0);
  const [follow, setFollow] = useState(followInit);
  const [text, setText] = useState('');
  const [state, setState] = useState<'streaming' | 'ended' | 'stopped'>('streaming');
  const [error, setError] = useState<string | null>(null);
  const offset = useRef(0);
  const box = useRef<HTMLPreElement>(null);
  const queryKey = JSON.stringify(query ?? {});

  // A new replica or log starts from nothing.
  useEffect(() => {
    offset.current = 0;
    setText('');
    setError(null);
  }, [path, replica, queryKey]);

  useEffect(() => {
    if (!follow) {
      setState('stopped');
      return;
    }
    setState('streaming');
    const q: Record<string, string | number> = { ...(query ?? {}) };
    if (replicas > 0) q.replica = replica;
    const enc = new TextEncoder();
    const stop = followLog(
      path,
      {
        onText: (s) => {
          offset.current += enc.encode(s).length;
          setText((prev) => {
            const next = prev + s;
            return next.length > KEEP ? next.slice(next.length - KEEP) : next;
          });
        },
        onEnd: () => setState('ended'),
        onError: (m) => setError(m),
      },
      { query: q, offset: offset.current },
    );
    return stop;
  }, [path, replica, follow, replicas, queryKey]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [text, follow]);

  return (
    <div>
      <Space style={{ marginBottom: 8 }} wrap>
        {replicas > 1 && (
          <Select
            aria-label={t('generic.logs.replica')}
            value={replica}
            onChange={setReplica}
            style={{ width: 140 }}
            options={Array.from({ length: replicas }, (_, i) => ({ value: i, label: `${t('generic.logs.replica')} ${i}` }))}
          />
        )}
        <Space>
          <Switch id="log-follow" checked={follow} onChange={setFollow} aria-label={t('generic.logs.follow')} />
          <label htmlFor="log-follow">{t('generic.logs.follow')}</label>
        </Space>
        <Typography.Text type="secondary" role="status">
          {state === 'streaming' ? t('generic.logs.streaming') : state === 'ended' ? t('generic.logs.ended') : ''}
        </Typography.Text>
        {error && <Typography.Text type="danger">{error}</Typography.Text>}
      </Space>
      <pre
        ref={box}
        role="log"
        aria-label={t('generic.logs.title')}
        aria-live="polite"
        style={{
          height,
          overflow: 'auto',
          margin: 0,
          padding: 12,
          background: '#1e1e1e',
          color: '#d4d4d4',
          fontSize: 12,
          borderRadius: 6,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-all',
        }}
      >
        {text || <span style={{ opacity: 0.6 }}>{t('generic.logs.empty')}</span>}
      </pre>
    </div>
  );
}
