// tool.js — the uitest plugin's page (served as an asset in tests).
export function mount(element) {
  element.textContent = 'uitest tool';
}
