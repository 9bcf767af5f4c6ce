// ComingSoon — what a reserved page shows until its area fills it.
import { Empty } from 'antd';
import { useT } from '../../i18n';

export function ComingSoon({ title }: { title?: string }) {
  const t = useT();
  return (
    <div data-testid="coming-soon" style={{ padding: 48 }}>
      <Empty description={title ? `${title} — ${t('common.comingSoon')}` : t('common.comingSoon')} />
    </div>
  );
}
