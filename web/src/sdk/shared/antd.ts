// The shared module "antd": the console's Ant Design (one theme, one
// ConfigProvider, one App context for message and modal).
export * from 'antd';
