#!/usr/bin/env bash
# A real editor on `onnx-text lsp`: Neovim, headless, opens a model with an error, waits for
# the diagnostics, hovers and goes to a definition (editors/neovim/check.lua prints each).
# Needs Neovim 0.7 or newer (Debian: `apt-get install neovim`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p onnx-text-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/model.onnxtxt" <<'ONNX'
<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 128] x, float[128, 10] w) => (float[N, 10] y) {
    t = MatMul (x, w)
    r = Relu (t)
    y = Add (r, bias)
}
ONNX
ONNX_TEXT="$PWD/target/debug/onnx-text" timeout 60 nvim --headless -u NONE -i NONE -n \
    -c "luafile editors/neovim/check.lua" "$dir/model.onnxtxt"
