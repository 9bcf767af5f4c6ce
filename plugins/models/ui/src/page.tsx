// page.tsx — the models plugin's console pages (work in progress).
import { definePage } from '@cube/console-sdk';

function ModelPages() {
  return <div>Models</div>;
}

export const { mount } = definePage(ModelPages, { messages: { en: {}, zh: {} } });
