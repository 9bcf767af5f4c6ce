// actions.tsx — pipeline actions shared by the list and the detail page:
// run (then open the run), copy (asks for the new name), export (YAML file).
import { Input, message, Modal } from 'antd';
import type { NavigateFunction } from '@cube/console-sdk';
import { errorMessage } from '@cube/console-sdk';
import type { TFunction } from '@cube/console-sdk';
import { copyPipeline, exportPipelineText, runPipeline } from './api';
import { TASK_NAME_RE } from './dagSpec';
import { download } from './porting';

export const pipelineUrl = (project: string, name: string) =>
  `/p/${encodeURIComponent(project)}/pipelines/${encodeURIComponent(name)}`;

/** The editor of a new pipeline ("_new" can be no pipeline's name). */
export const newPipelineUrl = (project: string) => `/p/${encodeURIComponent(project)}/pipelines/_new`;

export async function runAndOpen(project: string, name: string, navigate: NavigateFunction, t: TFunction) {
  try {
    const run = await runPipeline(project, name);
    message.success(t('pipelines.action.runStarted', { run: run.metadata.name }));
    navigate(`${pipelineUrl(project, name)}/runs/${encodeURIComponent(run.metadata.name)}`);
  } catch (e) {
    message.error(errorMessage(e));
  }
}

export function askCopy(project: string, name: string, navigate: NavigateFunction, t: TFunction) {
  let to = `${name}-copy`.slice(0, 63);
  Modal.confirm({
    title: t('pipelines.action.copyTitle', { name }),
    content: <Input defaultValue={to} aria-label={t('common.name')} onChange={(e) => (to = e.target.value.trim())} />,
    okText: t('common.copy'),
    cancelText: t('common.cancel'),
    onOk: async () => {
      if (!TASK_NAME_RE.test(to) || to.length > 63) {
        message.error(t('pipelines.editor.badName'));
        throw new Error('bad name');
      }
      try {
        await copyPipeline(project, name, to);
        navigate(pipelineUrl(project, to));
      } catch (e) {
        message.error(errorMessage(e));
        throw e;
      }
    },
  });
}

/** Downloads the server's export of the pipeline (YAML). */
export async function exportFile(project: string, name: string) {
  try {
    download(`${name}.yaml`, await exportPipelineText(project, name));
  } catch (e) {
    message.error(errorMessage(e));
  }
}
