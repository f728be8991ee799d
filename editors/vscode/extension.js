// The CuK extension's client: starts `cukc lsp` (the `cuk.server.path` setting,
// `cukc` on PATH by default) for `.cuk` files and passes the `cuk.target` setting
// as the server's initialization options. Everything else is the server's.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration('cuk');
  const command = settings.get('server.path') || 'cukc';
  const serverOptions = { command, args: ['lsp'] };
  const clientOptions = {
    documentSelector: [{ scheme: 'file', language: 'cuk' }],
    initializationOptions: { target: settings.get('target') || 'sm_90a' },
  };
  client = new LanguageClient('cuk', 'CuK (cukc lsp)', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('cuk')) {
        vscode.window.showInformationMessage('CuK: reload the window to apply the new settings.');
      }
    }),
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
