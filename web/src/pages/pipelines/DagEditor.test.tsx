import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { I18nProvider, registerMessages } from '../../i18n';
import { mockFetch } from '../../test/fetchMock';
import DagEditor from './DagEditor';
import shellMessages from '../../shell/messages';
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

describe('DagEditor', () => {
  it('saves the graph as the spec and shows a 422 on the task and field it names', async () => {
    let saved: Pipeline | null = null;
    mockFetch({
      'GET /api/v1/jobtemplates': { body: { items: [template('data-split'), template('sklearn-svm', {
        model: { '--C': { type: 'float', label: 'C', range: '0,1000', default: 1 } },
      })] } },
      'GET /api/v1/projects/p1/projectjobtemplates': { body: { items: [template('my-step')] } },
      'PUT /api/v1/projects/p1/pipelines/demo': (init) => {
        saved = JSON.parse(String(init.body));
        return { status: 422, body: { error: { code: 'Invalid', message: 'must be at most 100', field: 'spec.tasks[1].args.--C' } } };
      },
    });
    const onSaved = vi.fn();
    render(<I18nProvider initial="en"><DagEditor project="p1" pipeline={pipeline} isNew={false} onSaved={onSaved} /></I18nProvider>);
    expect(await screen.findByText('my-step')).toBeInTheDocument();
    expect(screen.getByText('This project')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: /Save/ }));
    expect(await screen.findByText('Task train: must be at most 100')).toBeInTheDocument();
    expect(saved!.metadata.resourceVersion).toBe('7');
    expect(saved!.spec!.tasks.map((t) => [t.name, t.upstream])).toEqual([['split', undefined], ['train', ['split']]]);
    // the task the server named is selected, its field shows the message
    expect(await screen.findByText('must be at most 100')).toBeInTheDocument();
    expect(screen.getByLabelText('C (--C)')).toHaveValue('5');
    expect(onSaved).not.toHaveBeenCalled();
  }, 60000);

  it('adds a task from the palette below the last one, connected to it', async () => {
    mockFetch({
      'GET /api/v1/jobtemplates': { body: { items: [template('data-split'), template('sklearn-svm')] } },
      'GET /api/v1/projects/p1/projectjobtemplates': { status: 404, body: { error: { code: 'NotFound', message: 'no kind' } } },
      'PUT /api/v1/projects/p1/pipelines/demo': (init) => ({ body: JSON.parse(String(init.body)) }),
    });
    const onSaved = vi.fn();
    render(<I18nProvider initial="en"><DagEditor project="p1" pipeline={pipeline} isNew={false} onSaved={onSaved} /></I18nProvider>);
    fireEvent.click(await screen.findByRole('button', { name: 'Add sklearn-svm' }));
    expect(await screen.findByTestId('task-sklearn-svm')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: /Save/ }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    const tasks = (onSaved.mock.calls[0][0] as Pipeline).spec!.tasks;
    expect(tasks.map((t) => t.name)).toEqual(['split', 'train', 'sklearn-svm']);
    expect(tasks[2]).toMatchObject({ template: 'sklearn-svm', upstream: ['train'], layout: { x: 0, y: 240 } });
  }, 60000);
});
