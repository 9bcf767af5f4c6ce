export default {
  en: {
    'login.title': 'Sign in to Cube',
    'login.username': 'User name',
    'login.password': 'Password',
    'login.method': 'Sign-in method',
    'login.submit': 'Sign in',
    'login.or': 'or',
    'login.with': 'Sign in with {name}',
    'login.required': 'Required',
  },
  zh: {
    'login.title': '登录 Cube',
    'login.username': '用户名',
    'login.password': '密码',
    'login.method': '登录方式',
    'login.submit': '登录',
    'login.or': '或',
    'login.with': '使用 {name} 登录',
    'login.required': '必填',
  },
};
