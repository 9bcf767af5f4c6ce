// PhaseTag — a phase or state word as a coloured tag, in the viewer's
// language (generic.phase.<Word> messages; a word the console does not know is
// shown as it is).
import { Tag } from 'antd';
import { tOr, useT, type TFunction } from '../../i18n';
import './messages';
import { phaseColor } from './resources';

export function phaseLabel(t: TFunction, phase: string): string {
  return tOr(t, `generic.phase.${phase}`, phase);
}

export function PhaseTag({ phase }: { phase: string | undefined | null }) {
  const t = useT();
  if (!phase) return null;
  return <Tag color={phaseColor(phase)}>{phaseLabel(t, phase)}</Tag>;
}
