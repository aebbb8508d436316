-- onnx-text in Neovim 0.7 or later: the file type `onnxtxt` for `*.onnxtxt` and `*.onnxtext`,
-- `#` comments, and the language server `onnx-text lsp` started on each such buffer.
--
-- Source it from your init.lua (or `luafile` it from init.vim):
--
--   vim.g.onnx_text_cmd = { "onnx-text", "lsp" }   -- optional: the server's command
--   dofile("/path/to/onnx-text/editors/neovim/onnx_text.lua")
--
-- One path for every version: autocommands detect the file type (on 0.7, `vim.filetype.add`
-- works only with `vim.g.do_filetype_lua = 1`), and the client starts with `vim.lsp.start`
-- where it exists (0.8 and later) or `vim.lsp.start_client` and `vim.lsp.buf_attach_client`
-- (0.7). Tested headless by scripts/nvim_lsp_check.sh on 0.7.2 and 0.11.4.

local group = vim.api.nvim_create_augroup("onnx_text", { clear = true })

vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  group = group,
  pattern = { "*.onnxtxt", "*.onnxtext" },
  callback = function(args)
    vim.bo[args.buf].filetype = "onnxtxt"
  end,
})

local function config()
  return {
    name = "onnx-text",
    cmd = vim.g.onnx_text_cmd or { "onnx-text", "lsp" },
    root_dir = vim.fn.getcwd(),
    -- For example `{ largeFileLimit = 64 * 1024 * 1024 }`: the size in bytes over which the
    -- server keeps to syntax errors, symbols and navigation (32 MiB by default).
    init_options = vim.g.onnx_text_init_options,
  }
end

-- Neovim 0.7: one client, attached to each buffer by hand.
local client_id = nil

local function start(buffer)
  if vim.lsp.start then
    -- `vim.lsp.start` attaches the current buffer, and reuses a client of the same name and root.
    vim.api.nvim_buf_call(buffer, function()
      vim.lsp.start(config())
    end)
    return
  end
  if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
    client_id = vim.lsp.start_client(config())
  end
  if client_id ~= nil then
    vim.lsp.buf_attach_client(buffer, client_id)
  end
end

vim.api.nvim_create_autocmd("FileType", {
  group = group,
  pattern = "onnxtxt",
  callback = function(args)
    vim.bo[args.buf].commentstring = "# %s"
    start(args.buf)
  end,
})
