import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { I18nProvider, registerMessages } from '@cube/console-test';
import { mockFetch } from '@cube/console-test';
import DagEditor from './DagEditor';
import shellMessages from '@cube/console-test';
import messages from './messages';
import type { Pipeline } from './types';

registerMessages(shellMessages);
registerMessages(messages);
// antd validates asynchronously; a loaded machine needs more than the default 1 s
configure({ asyncUtilTimeout: 10000 });
afterEach(() => vi.unstubAllGlobals());

const template = (name: string, args = {}) => ({ metadata: { name }, spec: { command: ['x'], category: 'data', args } });
const pipeline: Pipeline = {
  kind: 'Pipeline',
  metadata: { name: 'demo', project: 'p1', resourceVersion: '7' },
  spec: {
    tasks: [
      { name: 'split', template: 'data-split', layout: { x: 0, y: 0 } },
      { name: 'train', template: 'sklearn-svm', upstream: ['split'], args: { '--C': 5 }, layout: { x: 0, y: 120 } },
    ],
  },
};

// One render for the whole story: antd and @xyflow/react are slow to mount in jsdom.
it('saves the graph as the spec, shows a 422 on the task and field it names, adds tasks from the palette', async () => {
  const saved: Pipeline[] = [];
  mockFetch({
    'GET /api/v1/jobtemplates': { body: { items: [template('data-split'), template('sklearn-svm', {
      model: { '--C': { type: 'float', label: 'C', range: '0,1000', default: 1 } },
    })] } },
    'GET /api/v1/projects/p1/projectjobtemplates': { body: { items: [template('my-step')] } },
    'PUT /api/v1/projects/p1/pipelines/demo': (init) => {
      saved.push(JSON.parse(String(init.body)));
      return saved.length === 1
        ? { status: 422, body: { error: { code: 'Invalid', message: 'spec.tasks[1].args.--C: must be at most 100', field: 'spec.tasks[1].args.--C' } } }
        : { body: saved[saved.length - 1] };
    },
  });
  const onSaved = vi.fn();
  render(<I18nProvider initial="en"><DagEditor project="p1" pipeline={pipeline} isNew={false} onSaved={onSaved} /></I18nProvider>);
  expect(await screen.findByText('my-step')).toBeInTheDocument();
  expect(screen.getByText('This project')).toBeInTheDocument();

  fireEvent.click(screen.getByRole('button', { name: /Save/ }));
  expect(await screen.findByText('Task train: must be at most 100')).toBeInTheDocument();
  expect(saved[0].metadata.resourceVersion).toBe('7');
  expect(saved[0].spec!.tasks.map((t) => [t.name, t.upstream])).toEqual([['split', undefined], ['train', ['split']]]);
  // the task the server named is selected, its field shows the message
  expect(await screen.findByText('must be at most 100')).toBeInTheDocument();
  expect(screen.getByLabelText('C (--C)')).toHaveValue('5');
  expect(onSaved).not.toHaveBeenCalled();

  // + adds the template below the selected task, connected to it
  fireEvent.click(screen.getByRole('button', { name: 'Add sklearn-svm' }));
  expect(await screen.findByTestId('task-sklearn-svm')).toBeInTheDocument();
  fireEvent.click(screen.getByRole('button', { name: /Save/ }));
  await waitFor(() => expect(onSaved).toHaveBeenCalled());
  const tasks = saved[1].spec!.tasks;
  expect(tasks.map((t) => t.name)).toEqual(['split', 'train', 'sklearn-svm']);
  expect(tasks[2]).toMatchObject({ template: 'sklearn-svm', upstream: ['train'], layout: { x: 0, y: 240 } });
}, 90000);
