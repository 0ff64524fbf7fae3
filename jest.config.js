const jestJupyterLab = require('@jupyterlab/testutils/lib/jest-config');

const esModules = [
  '@codemirror',
  '@jupyter/ydoc',
  '@jupyter/react-components',
  '@jupyter/web-components',
  '@microsoft/',
  '@jupyterlab/',
  'exenv-es6',
  'lib0',
  'marked',
  'nanoid',
  'vscode-ws-jsonrpc',
  'y-protocols',
  'y-websocket',
  'yjs'
].join('|');

module.exports = {
  ...jestJupyterLab(__dirname),
  automock: false,
  testRegex: 'src/__tests__/.*\\.spec\\.ts$',
  transformIgnorePatterns: [`/node_modules/(?!${esModules}).+`]
};
