// page.js — the hello plugin's console page: a plain ES module (no build
// step, no console libraries). The console calls mount(element, context)
// with context {api, t, lang, navigate, user, project}; see cube_ui.h.

const TEXT = {
  en: {
    title: 'Hello from a plugin',
    intro: 'This page is an ES module shipped by the hello plugin.',
    name: 'Name',
    greet: 'Greet',
    failed: 'The greeting failed',
  },
  zh: {
    title: '来自插件的问候',
    intro: '此页面是 hello 插件提供的 ES 模块。',
    name: '名字',
    greet: '问候',
    failed: '问候失败',
  },
};

function userName(user) {
  if (!user) return 'world';
  if (typeof user === 'string') return user;
  return (user.metadata && user.metadata.name) || user.name || user.username || 'world';
}

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  Object.assign(node, attrs || {});
  if (text !== undefined) node.textContent = text;
  return node;
}

export function mount(element, ctx) {
  const text = TEXT[ctx.lang] || TEXT.en;
  const root = el('section', { className: 'hello-plugin-page' });
  root.style.cssText = 'padding: 16px; max-width: 40em; font-family: inherit';
  const title = el('h2', {}, text.title);
  const form = el('form');
  const label = el('label', { htmlFor: 'hello-plugin-name' }, text.name + ' ');
  const input = el('input', { id: 'hello-plugin-name', value: userName(ctx.user) });
  const button = el('button', { type: 'submit' }, text.greet);
  const output = el('p', { role: 'status' });
  form.append(label, input, ' ', button);
  root.append(title, el('p', {}, text.intro), form, output);
  element.append(root);

  let alive = true;
  async function greet() {
    try {
      const r = await ctx.api('/api/v1/hello/' + encodeURIComponent(input.value || 'world'));
      const body = await r.json();
      if (alive) output.textContent = r.ok ? body.message : text.failed + ': ' + r.status;
    } catch (e) {
      if (alive) output.textContent = text.failed + ': ' + e;
    }
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    greet();
  });
  greet();
  return () => {
    alive = false;
    root.remove();
  };
}
