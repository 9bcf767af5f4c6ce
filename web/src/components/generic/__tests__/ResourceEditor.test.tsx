import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ResourceEditor } from '../ResourceEditor';
import type { KindInfo } from '../../../api/types';
import { mockFetch } from '../../../test/fetchMock';
import { renderEn } from './testUtil';

const KIND: KindInfo = {
  kind: 'Job',
  plural: 'jobs',
  singular: 'job',
  scope: 'project',
  group: 'Training',
  schema: {
    type: 'object',
    required: ['command'],
    properties: {
      replicas: { type: 'integer', default: 1, description: 'Replicas started together' },
      command: { type: 'array', minItems: 1, items: { type: 'string' } },
      priority: { enum: ['high', 'normal', 'low'], default: 'normal' },
      debug: { type: 'boolean', default: false },
      retries: { type: 'object', properties: { limit: { type: 'integer', default: 0 } } },
      env: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
};

afterEach(() => vi.unstubAllGlobals());

// antd forms in jsdom are slow on a loaded machine.
describe('ResourceEditor form', { timeout: 30000 }, () => {
  it('generates labelled items with defaults, enums, required marks and help', () => {
    renderEn(<ResourceEditor kind={KIND} project="demo" onSaved={() => {}} />);
    expect(screen.getByLabelText('Name')).toHaveValue('');
    expect(screen.getByLabelText('Replicas')).toHaveValue('1');
    expect(screen.getByText('Replicas started together')).toBeInTheDocument();
    expect(screen.getByLabelText('Command 1')).toHaveValue('');
    // the enum is a select showing its default
    expect(screen.getByText('normal')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Debug' })).not.toBeChecked();
    // nested object: a fieldset with its own items
    const retries = screen.getByRole('group', { name: 'Retries' });
    expect(within(retries).getByLabelText('Limit')).toHaveValue('0');
    // required: the name's label and the command's legend carry the mark
    expect(screen.getByText('Name').closest('label')).toHaveClass('ant-form-item-required');
    expect(screen.getByRole('group', { name: '* Command' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add Env' })).toBeInTheDocument();
  });

  it('posts the object and puts a 422 on the field it names', async () => {
    const { calls } = mockFetch({
      'POST /api/v1/projects/demo/jobs': {
        status: 422,
        body: { error: { code: 'Invalid', message: 'spec.retries.limit: must be an integer', field: 'spec.retries.limit' } },
      },
    });
    renderEn(<ResourceEditor kind={KIND} project="demo" onSaved={() => {}} />);
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'j1' } });
    fireEvent.change(screen.getByLabelText('Command 1'), { target: { value: 'echo' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Env' }));
    fireEvent.change(screen.getByLabelText('Env key 1'), { target: { value: 'SEED' } });
    fireEvent.change(screen.getByLabelText('Env value 1'), { target: { value: '7' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].path).toBe('/api/v1/projects/demo/jobs');
    const sent = JSON.parse(String(calls[0].init.body));
    expect(sent.metadata).toEqual({ name: 'j1', labels: {} });
    expect(sent.spec).toEqual({ replicas: 1, command: ['echo'], priority: 'normal', debug: false, retries: { limit: 0 }, env: { SEED: '7' } });
    const limit = screen.getByLabelText('Limit');
    await waitFor(() => expect(within(limit.closest('.ant-form-item') as HTMLElement).getByText('must be an integer')).toBeInTheDocument());
    expect(screen.getByRole('alert', { name: '' })).toBeTruthy();
  });

  it('switches to YAML and back keeping the values', async () => {
    renderEn(<ResourceEditor kind={KIND} project="demo" onSaved={() => {}} />);
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'j2' } });
    fireEvent.click(screen.getByRole('radio', { name: 'YAML' }));
    const area = await screen.findByLabelText('YAML document');
    expect((area as HTMLTextAreaElement).value).toContain('name: j2');
    fireEvent.change(area, { target: { value: (area as HTMLTextAreaElement).value.replace('replicas: 1', 'replicas: 3') } });
    fireEvent.click(screen.getByRole('radio', { name: 'Form' }));
    await waitFor(() => expect(screen.getByLabelText('Replicas')).toHaveValue('3'));
    expect(screen.getByLabelText('Name')).toHaveValue('j2');
  });
});
