import { argFields, argsFromForm, formValues } from './argsSchema';
import type { ArgsSchema } from './types';

const schema: ArgsSchema = {
  data: {
    '--train_csv': { type: 'file', label: 'Training CSV', require: 1, default: '' },
    '--label_column': { type: 'str', label: 'Label', default: 'label' },
  },
  model: {
    '--C': { type: 'float', range: '0.001,100', default: 1.0 },
    '--max_iter': { type: 'int', range: '1,1000', default: 100 },
    '--kernel': { type: 'enum', item_type: 'str', choice: ['rbf', 'linear'], default: 'rbf' },
    '--probability': { type: 'bool', default: true },
    '--verbose': { type: 'bool' },
    '--metrics': { type: 'multiple', item_type: 'str', choice: ['acc', 'f1', 'auc'] },
    '--params': { type: 'dict', sub_args: { a: { type: 'int' } } },
    '--code': { type: 'text' },
  },
};

describe('argFields', () => {
  it('maps types to inputs, in order', () => {
    expect(argFields(schema).map((f) => [f.flag, f.kind, f.required])).toEqual([
      ['--train_csv', 'input', true], ['--label_column', 'input', false], ['--C', 'number', false],
      ['--max_iter', 'number', false], ['--kernel', 'select', false], ['--probability', 'switch', false],
      ['--verbose', 'switch', false], ['--metrics', 'multiselect', false], ['--params', 'json', false],
      ['--code', 'textarea', false],
    ]);
  });
});

describe('form values <-> args', () => {
  it('starts from the defaults and the task args', () => {
    const v = formValues(schema, { '--max_iter': 5, '--params': { a: 1 }, '--metrics': 'acc,f1' });
    expect(v['--C']).toBe('1');
    expect(v['--max_iter']).toBe('5');
    expect(v['--probability']).toBe(true);
    expect(v['--metrics']).toEqual(['acc', 'f1']);
    expect(JSON.parse(v['--params'] as string)).toEqual({ a: 1 });
  });

  it('keeps only what differs from the defaults, typed', () => {
    const v = formValues(schema, {});
    Object.assign(v, { '--train_csv': 'd.csv', '--C': '0.5', '--probability': false, '--params': '{"a": 2}', '--metrics': ['auc'] });
    expect(argsFromForm(schema, v)).toEqual({
      args: { '--train_csv': 'd.csv', '--C': 0.5, '--probability': false, '--params': { a: 2 }, '--metrics': ['auc'] },
      errors: {},
    });
  });

  it('names each bad value', () => {
    const v = formValues(schema, {});
    Object.assign(v, { '--C': '500', '--max_iter': '2.5', '--params': '[1]', '--kernel': 'cubic' });
    const { errors } = argsFromForm(schema, v);
    expect(errors).toEqual({
      '--train_csv': { key: 'pipelines.args.required' },
      '--C': { key: 'pipelines.args.range', vars: { min: 0.001, max: 100 } },
      '--max_iter': { key: 'pipelines.args.notInt' },
      '--kernel': { key: 'pipelines.args.choice' },
      '--params': { key: 'pipelines.args.object' },
    });
  });

  it('lets a {{ }} template stand in for any value', () => {
    const v = formValues(schema, {});
    Object.assign(v, { '--train_csv': '{{ tasks.split.outputs.train_csv }}', '--max_iter': '{{ steps }}' });
    expect(argsFromForm(schema, v)).toEqual({
      args: { '--train_csv': '{{ tasks.split.outputs.train_csv }}', '--max_iter': '{{ steps }}' },
      errors: {},
    });
  });
});
