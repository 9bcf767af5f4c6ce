import { Button, Result } from 'antd';
import { Link } from 'react-router-dom';
import { useT } from '../../i18n';

export function NotFound() {
  const t = useT();
  return (
    <Result
      status="404"
      title="404"
      subTitle={t('common.notFound')}
      extra={
        <Link to="/">
          <Button type="primary">{t('common.backHome')}</Button>
        </Link>
      }
    />
  );
}
