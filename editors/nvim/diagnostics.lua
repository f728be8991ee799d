-- Run by test.sh inside headless Neovim (0.7 or newer) with the .cuk file open:
-- start `cukc lsp` as Neovim's own LSP client, attach it to the buffer, wait for
-- the diagnostics, ask for a hover, write both to $CUK_OUT, and quit (status 1 on
-- any failure, so the test sees it).
local function run()
  local out = os.getenv('CUK_OUT')
  local client_id = vim.lsp.start_client({
    name = 'cukc',
    cmd = { os.getenv('CUKC'), 'lsp' },
    root_dir = vim.fn.getcwd(),
  })
  assert(client_id, 'cukc lsp did not start')
  local buffer = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buffer, client_id)
  local arrived = vim.wait(30000, function()
    return #vim.diagnostic.get(buffer) > 0
  end, 20)
  assert(arrived, 'no diagnostics arrived within 30 s')
  local lines = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(buffer)) do
    local lsp = (diagnostic.user_data or {}).lsp or {}
    local code = diagnostic.code or lsp.code or ''
    local message = diagnostic.message:gsub('\n', ' | ')
    table.insert(lines, string.format('%d:%d:%s:%s', diagnostic.lnum + 1, diagnostic.col + 1, code, message))
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(),
    position = { line = tonumber(os.getenv('CUK_HOVER_LINE')), character = tonumber(os.getenv('CUK_HOVER_COLUMN')) },
  }
  local responses = vim.lsp.buf_request_sync(buffer, 'textDocument/hover', params, 30000) or {}
  for _, response in pairs(responses) do
    local contents = response.result and response.result.contents or {}
    table.insert(lines, 'hover:')
    for _, line in ipairs(vim.split(contents.value or '', '\n')) do
      table.insert(lines, line)
    end
  end
  vim.fn.writefile(lines, out)
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 20)
end

local ok, failure = pcall(run)
if ok then
  vim.cmd('qall!')
else
  io.stderr:write('diagnostics.lua: ' .. tostring(failure) .. '\n')
  vim.cmd('cquit 1')
end
