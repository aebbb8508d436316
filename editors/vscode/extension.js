// The ONNX text extension: the grammar and language settings are declared in package.json; this
// starts the language server, `onnx-text lsp`, over stdio for `.onnxtxt` and `.onnxtext` files.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  const config = vscode.workspace.getConfiguration('onnxText');
  const command = config.get('server.path', 'onnx-text');
  const args = config.get('server.args', ['lsp']);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    'onnxText',
    'ONNX text',
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: 'file', language: 'onnxtxt' },
        { scheme: 'untitled', language: 'onnxtxt' },
      ],
    },
  );
  // Highlighting works without the server; say why the rest does not.
  client.start().catch((error) => {
    vscode.window.showErrorMessage(
      `ONNX text: cannot start the language server \`${command} ${args.join(' ')}\`: ${error.message}`,
    );
  });
  context.subscriptions.push({ dispose: () => deactivate() });
}

function deactivate() {
  const running = client;
  client = undefined;
  return running ? running.stop() : undefined;
}

module.exports = { activate, deactivate };
