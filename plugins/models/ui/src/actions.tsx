// actions.tsx — a version's buttons: promote (a stage menu; production
// asks first), deploy (service name), delete. Errors and results show as
// messages; the lists are live, so nothing reloads by hand.
import { Button, Dropdown, Input, message, Modal, Popconfirm, Space } from 'antd';
import { useState } from 'react';
import { errorMessage, useT } from '@cube/console-sdk';
import { deleteModel, deploy, promote } from './api';
import { STAGES, type Model, type Stage } from './types';

export function VersionActions({ project, model, onDeleted }: { project: string; model: Model; onDeleted?: () => void }) {
  const t = useT();
  const [deploying, setDeploying] = useState(false);
  const [service, setService] = useState('');
  const name = model.metadata.name;
  const ready = model.status?.phase === 'Ready';
  const current = model.status?.stage ?? 'none';

  const toStage = (stage: Stage) => {
    const run = () => promote(project, name, stage)
      .then((out) => {
        message.success(t('models.promoted', { name, stage: t(`models.stage.${stage}`) }));
        if (out.demoted?.length) message.info(t('models.demoted', { names: out.demoted.join(', ') }));
      })
      .catch((e) => message.error(errorMessage(e)));
    if (stage === 'production')
      Modal.confirm({ title: t('models.confirmProduction', { name }), okText: t('common.yes'), cancelText: t('common.no'), onOk: run });
    else run();
  };

  const doDeploy = () => deploy(project, name, service.trim() || undefined)
    .then((out) => {
      message.success(t('models.deployed', { service: out.service.metadata.name, how: t(out.created ? 'models.deployed.created' : 'models.deployed.updated') }));
      setDeploying(false);
    })
    .catch((e) => message.error(errorMessage(e)));

  return (
    <Space size="small" wrap>
      <Dropdown disabled={!ready && current === 'none'} menu={{
        items: STAGES.filter((s) => s !== current).map((s) => ({
          key: s, label: t('models.action.promoteTo', { stage: t(`models.stage.${s}`) }),
          disabled: !ready && (s === 'production' || s === 'staging'),
        })),
        onClick: ({ key }) => toStage(key as Stage),
      }}>
        <Button size="small">{t('models.action.promote')}</Button>
      </Dropdown>
      <Button size="small" type="primary" disabled={!ready || model.spec?.framework === 'custom'} onClick={() => setDeploying(true)}>
        {t('models.action.deploy')}
      </Button>
      <Popconfirm title={t('common.confirmDelete', { name })} okText={t('common.yes')} cancelText={t('common.no')}
        onConfirm={() => deleteModel(project, name).then(() => onDeleted?.()).catch((e) => message.error(errorMessage(e)))}>
        <Button size="small" danger>{t('common.delete')}</Button>
      </Popconfirm>
      <Modal open={deploying} title={`${t('models.action.deploy')} ${name}`} okText={t('models.action.deploy')}
        cancelText={t('common.cancel')} onOk={doDeploy} onCancel={() => setDeploying(false)} destroyOnClose>
        <Input aria-label={t('models.deployService')} placeholder={model.spec?.name} value={service}
          onChange={(e) => setService(e.target.value)} />
        <div style={{ marginTop: 4, color: '#888' }}>{t('models.deployService')}</div>
      </Modal>
    </Space>
  );
}
