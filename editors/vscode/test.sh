#!/bin/sh
# Runs the grammar tests (test/*.onnxtxt, test/*.onnxtext) with vscode-tmgrammar-test, installed
# locally from npm (node_modules/, not committed). Needs node and npm.
set -eu
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund
fi
npm test
