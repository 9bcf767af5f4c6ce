// Messages of the generic kind pages (list, detail, create, edit).
import { registerMessages } from '../../i18n';

const bundle = {
  en: {
    'kinds.title': 'Resources',
    'kinds.create': 'Create {kind}',
    'kinds.new': 'New {kind}',
    'kinds.edit': 'Edit {name}',
    'kinds.unknown': 'There is no kind "{plural}" on this server.',
    'kinds.needProject': 'Choose a project first: {kind} objects live in a project.',
    'kinds.back': 'Back to {kinds}',
    'kinds.cluster': 'cluster',
  },
  zh: {
    'kinds.title': '资源',
    'kinds.create': '创建 {kind}',
    'kinds.new': '新建 {kind}',
    'kinds.edit': '编辑 {name}',
    'kinds.unknown': '服务器上没有类型 "{plural}"。',
    'kinds.needProject': '请先选择项目：{kind} 对象属于项目。',
    'kinds.back': '返回 {kinds}',
    'kinds.cluster': '集群',
  },
};

registerMessages(bundle);
export default bundle;
