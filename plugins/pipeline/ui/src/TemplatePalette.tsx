// TemplatePalette — the templates a task can be made from, by category:
// drag one onto the canvas, or press its + button to add it below the
// selected task. The project's own templates come first, marked.
import { PlusOutlined } from '@ant-design/icons';
import { Button, Input, Tag, Tooltip, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { tOr, useT } from '@cube/console-sdk';
import type { TemplateEntry } from './api';

export const DRAG_TYPE = 'application/x-cube-template';

export function TemplatePalette({ templates, onAdd }: { templates: TemplateEntry[]; onAdd(name: string): void }) {
  const t = useT();
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const out = new Map<string, TemplateEntry[]>();
    for (const e of templates) {
      const s = e.template.spec;
      const hay = `${e.template.metadata.name} ${s?.description ?? ''}`.toLowerCase();
      if (q && !hay.includes(q)) continue;
      const cat = e.custom ? t('pipelines.palette.project') : s?.category || 'general';
      out.set(cat, [...(out.get(cat) ?? []), e]);
    }
    return [...out.entries()];
  }, [templates, filter, t]);

  return (
    <div aria-label={t('pipelines.palette.title')} style={{ overflowY: 'auto', height: '100%' }}>
      <Input.Search size="small" allowClear placeholder={t('pipelines.palette.search')} value={filter}
        onChange={(e) => setFilter(e.target.value)} style={{ marginBottom: 8 }} />
      {groups.length === 0 && <Typography.Text type="secondary">{t('pipelines.palette.empty')}</Typography.Text>}
      {groups.map(([cat, entries]) => (
        <div key={cat} style={{ marginBottom: 12 }}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {tOr(t, `pipelines.category.${cat}`, cat)}
          </Typography.Text>
          {entries.map(({ template, custom }) => (
            <Tooltip key={template.metadata.name} title={template.spec?.description} placement="right">
              <div
                draggable
                onDragStart={(e) => {
                  e.dataTransfer.setData(DRAG_TYPE, template.metadata.name);
                  e.dataTransfer.effectAllowed = 'copy';
                }}
                style={{ display: 'flex', alignItems: 'center', gap: 4, padding: '2px 4px', border: '1px solid #f0f0f0',
                  borderRadius: 4, margin: '4px 0', cursor: 'grab', background: '#fff' }}
              >
                <Typography.Text ellipsis style={{ flex: 1, fontSize: 13 }}>{template.metadata.name}</Typography.Text>
                {custom && <Tag style={{ marginInlineEnd: 0 }}>{t('pipelines.palette.custom')}</Tag>}
                <Button size="small" type="text" icon={<PlusOutlined />}
                  aria-label={t('pipelines.palette.add', { name: template.metadata.name })}
                  onClick={() => onAdd(template.metadata.name)} />
              </div>
            </Tooltip>
          ))}
        </div>
      ))}
    </div>
  );
}
