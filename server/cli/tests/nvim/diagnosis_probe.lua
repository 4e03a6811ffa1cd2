-- Headless probe of the diagnosis in Neovim: loads editors/neovim, opens the
-- fixture file given on the command line, waits for the server's diagnosis
-- (FAULTLENS_RUN=1: a trusted workspace where the probe runs
-- :FaultlensLocalize and the server diagnoses in the background; else a
-- diagnosis.json already on disk), then checks the diagnosis diagnostic,
-- the hover's angelic values, the textDocument/inlayHint answer and the
-- hints the configuration shows as virtual text. Writes a JSON report to
-- $FAULTLENS_REPORT; quits with status 1 when something is missing.

local repo = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h:h')
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
  local run = os.getenv('FAULTLENS_RUN') == '1'
  -- A deterministic budget: the diagnosis found is the same on any machine.
  faultlens.setup({
    cmd = { os.getenv('FAULTLENS_BIN') or 'faultlens', 'lsp' },
    trusted = run,
    settings = { diagnoseEffort = 30, diagnoseTimeLimitSeconds = 3600 },
  })
  local fault = tonumber(os.getenv('FAULTLENS_FAULT_LINE') or '0') - 1 -- 0-based
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = 'c'
  if not vim.wait(20000, function() return faultlens.status ~= nil end, 50) then
    fail('no faultlens/status from the server')
    return
  end
  if run then
    vim.cmd('FaultlensLocalize')
  end
  local done = vim.wait(120000, function()
    local d = faultlens.status and faultlens.status.diagnosis
    return d ~= nil and (d.state == 'done' or d.state == 'error')
  end, 50)
  report.status = faultlens.status
  if not done or faultlens.status.diagnosis.state ~= 'done' then
    fail('no diagnosis within 120 s: ' .. vim.fn.json_encode(faultlens.status))
    return
  end

  -- The diagnosis diagnostic on the faulty line.
  local found = vim.wait(20000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.lnum == fault and d.message:match('^diagnosis #') then
        return true
      end
    end
    return false
  end, 50)
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(report.diagnostics, { lnum = d.lnum, severity = d.severity, message = d.message })
  end
  if not found then
    fail('no diagnosis diagnostic on line ' .. (fault + 1))
  end

  -- Hover: the diagnoses of the line with their angelic values.
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = fault, character = 8 } }
  for _, r in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}) do
    if r.result and r.result.contents then
      report.hover = r.result.contents.value
    end
  end
  if not report.hover or not report.hover:match('makes [^\n]* pass') then
    fail('hover shows no angelic value: ' .. tostring(report.hover))
  end

  -- Inlay hints, asked the way a client asks.
  local range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } }
  local hint_params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), range = range }
  report.inlay_hints = {}
  for _, r in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/inlayHint', hint_params, 10000) or {}) do
    for _, h in ipairs(r.result or {}) do
      table.insert(report.inlay_hints, { line = h.position.line, character = h.position.character, label = h.label })
    end
  end
  local hint
  for _, h in ipairs(report.inlay_hints) do
    if h.line == fault then
      hint = h
    end
  end
  if not hint or type(hint.label) ~= 'string' or not hint.label:match('^⟵ .* makes .* pass$') then
    fail('no inlay hint with an angelic value on line ' .. (fault + 1))
  end

  -- What the configuration shows in the buffer.
  faultlens.refresh_hints(bufnr)
  vim.wait(10000, function()
    return #faultlens.shown_hints(bufnr) > 0
  end, 50)
  report.shown_hints = faultlens.shown_hints(bufnr)
  local shown
  for _, h in ipairs(report.shown_hints) do
    if h.line == fault and h.text:match('⟵') then
      shown = h
    end
  end
  if not shown then
    fail('the angelic value is not shown at the end of line ' .. (fault + 1))
  end
end)
if not ok then
  fail('probe error: ' .. tostring(err))
end
finish()
