-- Headless end-to-end probe: loads the configuration from editors/neovim,
-- opens the fixture file given on the command line, and checks what the
-- faultlens server shows. Writes a JSON report to $FAULTLENS_REPORT and
-- quits with status 1 when something is missing.
--
--   FAULTLENS_BIN=... FAULTLENS_REPORT=out.json FAULTLENS_FAULT_LINE=22 \
--   nvim --headless --clean -u NONE -c "luafile tests/nvim/probe.lua" path/to/mid.c

local repo = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
package.path = repo .. '/editors/neovim/?.lua;' .. package.path
local faultlens = require('faultlens')

local report = { errors = {} }
local function fail(msg)
  table.insert(report.errors, msg)
end
local function finish()
  local f = io.open(os.getenv('FAULTLENS_REPORT') or 'nvim-report.json', 'w')
  f:write(vim.fn.json_encode(report))
  f:close()
  vim.cmd(#report.errors == 0 and 'qall!' or 'cquit! 1')
end

local ok, err = pcall(function()
  -- FAULTLENS_RUN=1: a trusted workspace without results; the probe runs
  -- :FaultlensLocalize and waits for the server's own run.
  local run = os.getenv('FAULTLENS_RUN') == '1'
  -- A deterministic budget: the diagnosis found is the same on any machine.
  faultlens.setup({
    cmd = { os.getenv('FAULTLENS_BIN') or 'faultlens', 'lsp' },
    trusted = run,
    settings = { diagnoseEffort = 30, diagnoseTimeLimitSeconds = 3600 },
  })
  local fault = tonumber(os.getenv('FAULTLENS_FAULT_LINE') or '0') - 1 -- 0-based
  local bufnr = vim.api.nvim_get_current_buf()
  -- `-u NONE` loads no filetype plugins: set it so the FileType autocmd fires.
  vim.bo[bufnr].filetype = 'c'
  if run then
    if not vim.wait(20000, function() return faultlens.status ~= nil end, 50) then
      fail('no faultlens/status from the server')
      return
    end
    report.status_before_run = faultlens.status
    vim.cmd('FaultlensLocalize')
  end

  -- Diagnostics from the server.
  local got = vim.wait(60000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50)
  if not got then
    fail('no diagnostics within 60 s')
    return
  end
  local diags = vim.diagnostic.get(bufnr)
  report.diagnostics = {}
  for _, d in ipairs(diags) do
    table.insert(report.diagnostics, { lnum = d.lnum, severity = d.severity, message = d.message, source = d.source })
  end
  local top
  for _, d in ipairs(diags) do
    if d.lnum == fault and d.message:match('^#1 ') then
      top = d
    end
  end
  if not top then
    fail('no #1 diagnostic on line ' .. (fault + 1))
  elseif top.severity ~= vim.diagnostic.severity.WARN then
    fail('the top line is not a warning')
  end

  -- Hover on the faulty line.
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = fault, character = 8 } }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}
  for _, r in pairs(responses) do
    if r.result and r.result.contents then
      report.hover = r.result.contents.value
    end
  end
  if not report.hover or not report.hover:match('#1 of') then
    fail('hover lacks the rank: ' .. tostring(report.hover))
  end

  -- Code lenses, as the editor displays them.
  vim.lsp.codelens.refresh()
  vim.wait(10000, function()
    return #vim.lsp.codelens.get(bufnr) > 0
  end, 50)
  report.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(report.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title, command = lens.command and lens.command.command })
  end
  local line_lens, file_lens
  for _, lens in ipairs(report.lenses) do
    if lens.line == fault and lens.title and lens.title:match('^#1 ') then
      line_lens = lens
    end
    if lens.line == 0 and lens.command == 'faultlens.localize' then
      file_lens = lens
    end
  end
  if not line_lens then
    fail('no #1 code lens on the faulty line')
  end
  if not file_lens then
    fail('no re-run lens at the top of the file')
  end
  -- Notifications may trail the responses above: wait for them.
  vim.wait(10000, function()
    return faultlens.scores ~= nil and faultlens.status ~= nil and faultlens.status.state == 'done'
  end, 50)
  report.status = faultlens.status
  report.scores_files = faultlens.scores and #faultlens.scores.files or 0
  if report.scores_files == 0 then
    fail('no faultlens/scores notification')
  end
end)
if not ok then
  fail('probe error: ' .. tostring(err))
end
finish()
