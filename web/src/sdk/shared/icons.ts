// The shared module "@ant-design/icons".
export * from '@ant-design/icons';
export { default } from '@ant-design/icons';
