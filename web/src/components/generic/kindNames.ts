// kindNames.ts — what the console calls a kind and its menu group, in the
// viewer's language: the names the kind declares (GET /api/v1/kinds:
// displayName, displayPlural and their Zh forms, groupZh), else the
// console's own messages (kind.<Kind>, menu.group.<Group>), else words
// derived from the kind's name. Never the raw plural ("Pipelineruns").
import type { KindInfo } from '../../api/types';
import { tOr, type Lang, type TFunction } from '../../i18n';

/** "PipelineRun" -> "Pipeline run" (as the server derives it). */
export function kindWords(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
}

type Names = Pick<KindInfo, 'kind' | 'displayName' | 'displayPlural' | 'displayNameZh' | 'displayPluralZh'>;

/** The kind's name for one object (plural false) or for its list. */
export function kindLabel(k: Names, lang: Lang, t: TFunction, plural = true): string {
  const declared = plural
    ? lang === 'zh' ? k.displayPluralZh : k.displayPlural
    : lang === 'zh' ? k.displayNameZh : k.displayName;
  // a server older than 1.5 declares nothing: the console's own names
  if (declared) return declared;
  const words = kindWords(k.kind);
  return plural ? tOr(t, `kind.${k.kind}`, `${words}s`) : tOr(t, `kind.one.${k.kind}`, words);
}

/** A menu group's label: the zh a kind of that group declared, else the
 *  console's message for it, else the group's own name. */
export function groupLabel(group: string, lang: Lang, t: TFunction, kinds: Pick<KindInfo, 'group' | 'groupZh'>[] = []): string {
  if (lang === 'zh') {
    const declared = kinds.find((k) => k.group === group && k.groupZh)?.groupZh;
    if (declared) return declared;
  }
  return tOr(t, `menu.group.${group}`, group);
}
