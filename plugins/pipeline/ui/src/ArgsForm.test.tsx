import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { I18nProvider, registerMessages } from '@cube/console-test';
import { ArgsForm } from './ArgsForm';
import messages from './messages';
import type { ArgsSchema } from './types';

registerMessages(messages);
// antd validates asynchronously; a loaded machine needs more than the default 1 s
configure({ asyncUtilTimeout: 10000 });

const schema: ArgsSchema = {
  data: {
    '--train_csv': { type: 'file', label: 'Training CSV', require: 1, default: '', describe: 'CSV with features and label' },
  },
  model: {
    '--C': { type: 'float', label: 'C', range: '0.001,100', default: 1.0, describe: 'Inverse regularisation' },
    '--kernel': { type: 'enum', item_type: 'str', label: 'Kernel', choice: ['rbf', 'linear'], default: 'rbf' },
    '--probability': { type: 'bool', label: 'Probability', default: false },
  },
};

function setup(serverErrors?: Record<string, string>) {
  const onChange = vi.fn();
  render(
    <I18nProvider initial="en">
      <ArgsForm schema={schema} args={{ '--C': 2 }} onChange={onChange} serverErrors={serverErrors} />
    </I18nProvider>,
  );
  return onChange;
}

describe('ArgsForm', () => {
  it('builds one field per argument: groups, labels, help, required marks, choices, values', async () => {
    setup();
    expect(screen.getByRole('region', { name: 'data' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'model' })).toBeInTheDocument();
    expect(screen.getByText('CSV with features and label')).toBeInTheDocument();
    const csv = screen.getByLabelText('Training CSV (--train_csv)');
    expect(csv.closest('.ant-form-item')?.querySelector('.ant-form-item-required')).not.toBeNull();
    expect(screen.getByLabelText('C (--C)')).toHaveValue('2');
    expect(screen.getByRole('switch')).not.toBeChecked();
    fireEvent.mouseDown(screen.getByLabelText('Kernel (--kernel)'));
    expect(await screen.findByTitle('linear')).toBeInTheDocument();
  }, 20000);

  it('reports typed args and shows range errors as the user types', async () => {
    const onChange = setup();
    fireEvent.change(screen.getByLabelText('Training CSV (--train_csv)'), { target: { value: 'd.csv' } });
    fireEvent.click(screen.getByRole('switch'));
    expect(onChange).toHaveBeenLastCalledWith({ '--train_csv': 'd.csv', '--C': 2, '--probability': true }, {});
    fireEvent.change(screen.getByLabelText('C (--C)'), { target: { value: '500' } });
    expect(await screen.findByText('Must be between 0.001 and 100')).toBeInTheDocument();
    const [, errors] = onChange.mock.calls[onChange.mock.calls.length - 1];
    expect(errors).toEqual({ '--C': { key: 'pipelines.args.range', vars: { min: 0.001, max: 100 } } });
  }, 20000);

  it('shows a server error on its field until the field changes', async () => {
    setup({ '--train_csv': 'no such file' });
    expect(screen.getByText('no such file')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Training CSV (--train_csv)'), { target: { value: 'x' } });
    await waitFor(() => expect(screen.queryByText('no such file')).not.toBeInTheDocument());
  }, 20000);
});
