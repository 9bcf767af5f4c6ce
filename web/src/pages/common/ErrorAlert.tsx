// ErrorAlert — a failed call, with the server's message (and the field it
// names, when it names one) and an optional retry.
import { Alert, Button } from 'antd';
import { ApiError } from '../../api/client';
import { useT } from '../../i18n';

export function ErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const t = useT();
  if (!error) return null;
  const msg = error instanceof Error ? error.message : String(error);
  const field = error instanceof ApiError && error.field ? ` (${error.field})` : '';
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      message={msg + field}
      style={{ marginBottom: 16 }}
      action={onRetry && <Button size="small" onClick={onRetry}>{t('common.retry')}</Button>}
    />
  );
}
