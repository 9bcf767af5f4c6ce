import { configure, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from '@cube/console-test';
import { I18nProvider, registerMessages } from '@cube/console-test';
import shellMessages from '@cube/console-test';
import { mockFetch } from '@cube/console-test';
import messages from './messages';
import RunView from './RunView';

registerMessages(shellMessages);
registerMessages(messages);
// antd validates asynchronously; a loaded machine needs more than the default 1 s
configure({ asyncUtilTimeout: 10000 });
afterEach(() => vi.unstubAllGlobals());

const base = '/api/v1/projects/p1/pipelineruns/demo-1';
const run = {
  metadata: { name: 'demo-1', project: 'p1', labels: { pipeline: 'demo' } },
  spec: {
    pipeline: 'demo', executionDate: '2026-11-29T00:00:00Z', trigger: 'manual',
    tasks: [{ name: 'split', layout: { x: 0, y: 0 } }, { name: 'eval', upstream: ['split'], layout: { x: 0, y: 120 } }],
  },
  status: {
    phase: 'Running', progress: '1/2',
    tasks: {
      split: { phase: 'Succeeded', job: 'demo-1-split', outputs: { train_rows: '105' },
        results: [{ name: 'metrics.json', type: 'json', url: `${base}/tasks/split/results/metrics.json` }] },
      eval: { phase: 'Running', job: 'demo-1-eval' },
    },
  },
};

it('shows task phases on the graph, and a picked task\'s log, results and outputs', async () => {
  const { calls } = mockFetch({
    'GET /api/v1/projects/p1/pipelineruns': { body: { items: [run], metadata: { resourceVersion: '3' } } },
    [`GET ${base}/tasks/split/logs`]: { body: 'split 150 rows\n', headers: { 'Content-Type': 'text/plain' } },
    [`GET ${base}/tasks/split/results/metrics.json`]: { body: { accuracy: 0.97 } },
  });
  render(
    <I18nProvider initial="en"><MemoryRouter><RunView project="p1" pipeline="demo" name="demo-1" /></MemoryRouter></I18nProvider>,
  );
  const split = await screen.findByTestId('task-split');
  expect(within(split).getByText('Succeeded')).toBeInTheDocument();
  expect(within(screen.getByTestId('task-eval')).getByText('Running')).toBeInTheDocument();
  expect(calls[0].url).toContain('labelSelector=pipeline%3Ddemo');
  expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();

  fireEvent.click(split);
  expect(await screen.findByText('split 150 rows')).toBeInTheDocument();
  fireEvent.click(screen.getByRole('tab', { name: 'Results' }));
  expect(await screen.findByText(/"accuracy": 0.97/)).toBeInTheDocument();
  fireEvent.click(screen.getByRole('tab', { name: 'Outputs' }));
  expect(await screen.findByText('105')).toBeInTheDocument();
}, 60000);
