// Renders a component inside the console's i18n provider (English).
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { I18nProvider } from '../../../i18n';
import '../messages';

export function renderEn(ui: ReactElement) {
  return render(<I18nProvider initial="en">{ui}</I18nProvider>);
}
