// The shared module "react-dom": the console's ReactDOM.
import ReactDOM from 'react-dom';

export default ReactDOM;
export const {
  createPortal, findDOMNode, flushSync, hydrate, render, unmountComponentAtNode,
  unstable_batchedUpdates, unstable_renderSubtreeIntoContainer, version,
} = ReactDOM;
const internals = ReactDOM as unknown as Record<string, unknown>;
export const __SECRET_INTERNALS_DO_NOT_USE_OR_YOU_WILL_BE_FIRED = internals.__SECRET_INTERNALS_DO_NOT_USE_OR_YOU_WILL_BE_FIRED;
