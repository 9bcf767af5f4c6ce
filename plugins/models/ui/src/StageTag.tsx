// StageTag, PhaseTag — a version's stage and phase as coloured tags.
import { Tag, Tooltip } from 'antd';
import { useT } from '@cube/console-sdk';
import type { ModelStatus } from './types';

const STAGE_COLOR: Record<string, string> = { none: 'default', staging: 'gold', production: 'green', archived: 'default' };
const PHASE_COLOR: Record<string, string> = { Pending: 'processing', AwaitingUpload: 'warning', Ready: 'success', Failed: 'error' };

export function StageTag({ stage }: { stage?: string }) {
  const t = useT();
  const s = stage || 'none';
  return <Tag color={STAGE_COLOR[s] ?? 'default'} data-stage={s}>{t(`models.stage.${s}`)}</Tag>;
}

export function PhaseTag({ status }: { status?: ModelStatus }) {
  const t = useT();
  const p = status?.phase || 'Pending';
  const tag = <Tag color={PHASE_COLOR[p] ?? 'default'}>{t(`models.phase.${p}`)}</Tag>;
  return status?.message ? <Tooltip title={status.message}>{tag}</Tooltip> : tag;
}
