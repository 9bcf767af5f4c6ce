import { render, screen, within } from '@testing-library/react';
import { I18nProvider, registerMessages } from '../../i18n';
import { JobStatusView } from './JobPages';
import messages from './messages';
import type { Job } from './jobTypes';

registerMessages(messages);

function renderEn(job: Job) {
  return render(
    <I18nProvider initial="en">
      <JobStatusView job={job} />
    </I18nProvider>,
  );
}

describe('JobStatusView', { timeout: 20000 }, () => {
  it('says why a pending job waits and where it is in the queue', () => {
    renderEn({
      metadata: { name: 'big' },
      spec: { command: ['python3', 'train.py'], args: ['--epochs', '3'] },
      status: { phase: 'Pending', waiting: 'quota: nvidia.com/gpu 4/4 used in pool default (job needs 2)', queuePosition: 3 },
    });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Why it waits — Position 3 in the queue');
    expect(alert).toHaveTextContent('quota: nvidia.com/gpu 4/4 used in pool default (job needs 2)');
    expect(screen.getByText('python3 train.py --epochs 3')).toBeInTheDocument();
  });

  it('lists replicas with node, devices and exit', () => {
    renderEn({
      metadata: { name: 'ddp' },
      spec: { command: ['x'] },
      status: {
        phase: 'Failed',
        reason: 'OOMKilled',
        replicas: [
          { index: 0, node: 'gpu-01', phase: 'Failed', exitCode: 137, reason: 'OOMKilled', devices: [{ id: '3', resource: 'nvidia.com/gpu', share: 0.5 }] },
        ],
      },
    });
    expect(screen.queryByRole('alert')).toBeNull();
    const table = screen.getByRole('columnheader', { name: 'Node' }).closest('table') as HTMLElement;
    const row = within(table).getAllByRole('row')[1];
    expect(row).toHaveTextContent('gpu-01');
    expect(row).toHaveTextContent('nvidia.com/gpu#3 ×0.5');
    expect(row).toHaveTextContent('137');
  });
});
