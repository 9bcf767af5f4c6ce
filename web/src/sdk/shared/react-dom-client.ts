// The shared module "react-dom/client".
export { createRoot, hydrateRoot } from 'react-dom/client';
