// page.tsx — vendor-hello's console page, built against the published
// @cube/console-sdk alone (its declaration file; see ../package.json): the
// console serves React and the SDK, so the built page.js holds only this
// file's code. It shows the greeting of GET /api/v1/vendor-hello and the
// projects the plugin greeted.
import { definePage, ErrorAlert, PageSkeleton, useApi, useT, version } from '@cube/console-sdk';

const messages = {
  en: {
    'vendorHello.title': 'Hello from a vendor',
    'vendorHello.greeting': '{greeting} (Cube {host})',
    'vendorHello.sdk': 'Built against @cube/console-sdk; the console serves {version}.',
    'vendorHello.greeted': 'Projects greeted: {names}',
    'vendorHello.none': 'No project greeted yet: new projects are.',
    'vendorHello.last': 'Last notice: {last}',
  },
  zh: {
    'vendorHello.title': '来自厂商的问候',
    'vendorHello.greeting': '{greeting}（Cube {host}）',
    'vendorHello.sdk': '基于 @cube/console-sdk 构建；控制台提供 {version}。',
    'vendorHello.greeted': '已问候的项目：{names}',
    'vendorHello.none': '尚未问候任何项目：新建的项目会收到问候。',
    'vendorHello.last': '最近一次通知：{last}',
  },
};

interface Hello {
  plugin: string;
  greeting: string;
  host_version: string;
  greeted: string[];
  last_notify: string;
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
        <>
          <p role="status">{t('vendorHello.greeting', { greeting: hello.data.greeting, host: hello.data.host_version })}</p>
          <p>{hello.data.greeted.length
            ? t('vendorHello.greeted', { names: hello.data.greeted.join(', ') })
            : t('vendorHello.none')}</p>
          {hello.data.last_notify && <p>{t('vendorHello.last', { last: hello.data.last_notify })}</p>}
        </>
      )}
      <p>{t('vendorHello.sdk', { version })}</p>
    </section>
  );
}

export const { mount } = definePage(VendorHello, { messages });
