-- Drives `onnx-text lsp` from a real Neovim (0.7 or newer), headless: opens the file given on
-- the command line, waits for the diagnostics, asks for a hover and a definition, prints what it
-- got, and exits non-zero if anything is missing. Run by scripts/nvim_lsp_check.sh.
local server = os.getenv("ONNX_TEXT") or "onnx-text"
local buffer = vim.api.nvim_get_current_buf()
local function fail(message)
  io.stdout:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local client = vim.lsp.start_client({
  name = "onnx-text",
  cmd = { server, "lsp" },
  root_dir = vim.fn.getcwd(),
})
if not client then
  fail("the server did not start")
end
vim.lsp.buf_attach_client(buffer, client)

-- Diagnostics arrive after the open.
local got = vim.wait(10000, function()
  return #vim.diagnostic.get(buffer) > 0
end, 50)
if not got then
  fail("no diagnostics within 10 s")
end
for _, d in ipairs(vim.diagnostic.get(buffer)) do
  io.stdout:write(string.format("diagnostic %d:%d [%s] %s\n", d.lnum + 1, d.col + 1, tostring(d.code), d.message))
end

local function request(method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buffer) },
    position = { line = line, character = character },
  }
  local replies = vim.lsp.buf_request_sync(buffer, method, params, 10000)
  for _, reply in pairs(replies or {}) do
    if reply.result then
      return reply.result
    end
  end
  fail("no answer to " .. method)
end

-- Line 4 of the file is `    r = Relu (t)`: hover on `Relu`, then the definition of `t`.
local hover = request("textDocument/hover", 3, 9)
io.stdout:write("hover: " .. hover.contents.value:gsub("\n", " | ") .. "\n")
local definition = request("textDocument/definition", 3, 14)
local target = definition.range and definition or definition[1]
io.stdout:write(string.format("definition: line %d, column %d\n", target.range.start.line + 1, target.range.start.character + 1))
if not hover.contents.value:find("Relu%(X: T%) %-> %(Y: T%)") then
  fail("the hover does not show Relu's schema")
end
if target.range.start.line ~= 2 then
  fail("the definition of `t` is not on line 3")
end
io.stdout:write("OK\n")
vim.cmd("qall!")
