// The shared module "react/jsx-runtime" (what JSX compiles to).
export { Fragment, jsx, jsxs } from 'react/jsx-runtime';
