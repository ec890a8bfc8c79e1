export {
  CALL_ID_META,
  type CallerCredentials,
  createErpMcpApp,
  createMcpServer,
  credentialsFromHeaders,
  type ErpMcpOptions,
  erpToolRegistry,
  runErpMcpStdio,
  startErpMcpServer,
} from './server.ts';
