-- Checks editors/neovim/onnx_text.lua in a real Neovim (0.7 or later), headless: the buffer
-- opened from the command line and a second file opened with `:edit` (the path in
-- $ONNX_TEXT_SECOND) each get the file type `onnxtxt`, a client of `onnx-text lsp` attached and
-- their diagnostics; then a hover and a definition in the first. Prints what it got and exits
-- non-zero if anything is missing. Run by scripts/nvim_lsp_check.sh.
local function fail(message)
  io.stdout:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local function clients(buffer)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buffer }) -- 0.10 and later
  end
  return vim.lsp.buf_get_clients(buffer)
end

local function check_buffer(buffer)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buffer), ":t")
  if vim.bo[buffer].filetype ~= "onnxtxt" then
    fail(name .. ": file type `" .. vim.bo[buffer].filetype .. "`, not `onnxtxt`")
  end
  if vim.bo[buffer].commentstring ~= "# %s" then
    fail(name .. ": comment string `" .. vim.bo[buffer].commentstring .. "`")
  end
  local attached = vim.wait(10000, function()
    return next(clients(buffer)) ~= nil
  end, 50)
  if not attached then
    fail(name .. ": no client attached within 10 s")
  end
  local got = vim.wait(10000, function()
    return #vim.diagnostic.get(buffer) > 0
  end, 50)
  if not got then
    fail(name .. ": no diagnostics within 10 s")
  end
  io.stdout:write(string.format("%s: file type %s, client %s\n", name, vim.bo[buffer].filetype, next(clients(buffer)) and "attached" or "none"))
  for _, d in ipairs(vim.diagnostic.get(buffer)) do
    io.stdout:write(string.format("  diagnostic %d:%d [%s] %s\n", d.lnum + 1, d.col + 1, tostring(d.code), d.message))
  end
end

local first = vim.api.nvim_get_current_buf()
check_buffer(first)
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("ONNX_TEXT_SECOND")))
local second = vim.api.nvim_get_current_buf()
if second == first then
  fail("the second file did not open")
end
check_buffer(second)
-- One server for both.
local ids = {}
for _, buffer in ipairs({ first, second }) do
  for _, client in pairs(clients(buffer)) do
    ids[client.id] = true
  end
end
if vim.tbl_count(ids) ~= 1 then
  fail(vim.tbl_count(ids) .. " clients for the two files, not one")
end

local function request(method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(first) },
    position = { line = line, character = character },
  }
  local replies = vim.lsp.buf_request_sync(first, method, params, 10000)
  for _, reply in pairs(replies or {}) do
    if reply.result then
      return reply.result
    end
  end
  fail("no answer to " .. method)
end

-- Line 4 of the first file is `    r = Relu (t)`: hover on `Relu`, then the definition of `t`.
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
io.stdout:write("OK (Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch) .. ")\n")
vim.cmd("qall!")
