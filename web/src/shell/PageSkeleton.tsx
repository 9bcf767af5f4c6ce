// PageSkeleton — the placeholder a page shows while its data or code loads,
// sized like a page so nothing jumps when the content arrives.
import { Skeleton } from 'antd';

export function PageSkeleton({ rows = 6 }: { rows?: number }) {
  return (
    <div style={{ padding: 24 }} data-testid="page-skeleton">
      <Skeleton active title={{ width: '30%' }} paragraph={{ rows }} />
    </div>
  );
}
