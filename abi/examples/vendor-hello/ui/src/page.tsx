// page.tsx — vendor-hello's console page, built against the published
// @cube/console-sdk alone (its declaration file; see ../package.json): the
// console serves React and the SDK, so the built page.js holds only this
// file's code. It shows the greeting of GET /api/v1/vendor-hello.
import { definePage, ErrorAlert, PageSkeleton, useApi, useT, version } from '@cube/console-sdk';

const messages = {
  en: {
    'vendorHello.title': 'Hello from a vendor',
    'vendorHello.greeting': '{greeting} (Cube {host})',
    'vendorHello.sdk': 'Built against @cube/console-sdk; the console serves {version}.',
  },
  zh: {
    'vendorHello.title': '来自厂商的问候',
    'vendorHello.greeting': '{greeting}（Cube {host}）',
    'vendorHello.sdk': '基于 @cube/console-sdk 构建；控制台提供 {version}。',
  },
};

interface Hello {
  plugin: string;
  greeting: string;
  host_version: string;
}

function VendorHello() {
  const t = useT();
  const hello = useApi<Hello>('/api/v1/vendor-hello');
  if (hello.loading && !hello.data) return <PageSkeleton rows={2} />;
  return (
    <section className="vendor-hello-page">
      <h2>{t('vendorHello.title')}</h2>
      <ErrorAlert error={hello.error} onRetry={hello.reload} />
      {hello.data && (
        <p role="status">{t('vendorHello.greeting', { greeting: hello.data.greeting, host: hello.data.host_version })}</p>
      )}
      <p>{t('vendorHello.sdk', { version })}</p>
    </section>
  );
}

export const { mount } = definePage(VendorHello, { messages });
