-- faultlens for Neovim's built-in LSP client (Neovim 0.7 or newer).
--
-- Install: copy this file to ~/.config/nvim/lua/faultlens.lua, then in init.lua:
--   require('faultlens').setup({ trusted = function(root) return root:find(vim.env.HOME .. '/src/', 1, true) == 1 end })
-- See editors/README.md for every option and command.

local M = {}

local defaults = {
  -- Command that starts the server.
  cmd = { 'faultlens', 'lsp' },
  -- File types to attach to.
  filetypes = { 'c', 'cpp' },
  -- Files that mark a project root, searched upwards from the buffer.
  root_markers = { 'faultlens.toml', '.faultlens', 'CMakeLists.txt', 'meson.build', 'Makefile', '.git' },
  -- Let faultlens build and run this project's code: true, false, or a
  -- function(root) returning a boolean. Off by default: without it faultlens
  -- only shows results already in .faultlens/results.json.
  trusted = false,
  -- Server settings (see editors/README.md).
  settings = {
    measure = 'ochiai',
    topN = 10,
    autoRunOnSave = false,
    timeoutSeconds = 10,
    -- Diagnose in the background after each localization with failing tests.
    diagnose = true,
    diagnoseTimeLimitSeconds = 30,
    -- A deterministic budget beside the time budget (units of about a
    -- second of work, the same on every machine); nil: the time alone.
    diagnoseEffort = nil,
  },
  -- Show the diagnosis's angelic values (inlay hints, `⟵ 5 makes t7 pass`)
  -- at the end of diagnosed statements: through vim.lsp.inlay_hint where
  -- Neovim has it (0.10+), else as end-of-line virtual text.
  inlay_hints = true,
  -- Refresh code lenses on these events.
  codelens_events = { 'BufEnter', 'CursorHold', 'InsertLeave' },
}

M.config = vim.deepcopy(defaults)
-- Last faultlens/status and faultlens/scores payloads, for statuslines and heatmaps.
M.status = nil
M.scores = nil
local clients = {} -- root -> client id

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

local function find_root(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(M.config.root_markers) do
      if exists(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.fnamemodify(file, ':p:h')
end

local function is_trusted(root)
  local t = M.config.trusted
  if type(t) == 'function' then
    return t(root) == true
  end
  return t == true
end

-- Inlay hints as end-of-line virtual text, for Neovim without
-- vim.lsp.inlay_hint (before 0.10).
local hint_ns = vim.api.nvim_create_namespace('faultlens_hints')

function M.refresh_hints(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not M.config.inlay_hints or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  if vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
    return
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } },
  }
  vim.lsp.buf_request(bufnr, 'textDocument/inlayHint', params, function(err, result, ctx)
    if err or ctx.bufnr == nil or not vim.api.nvim_buf_is_loaded(ctx.bufnr) then
      return
    end
    vim.api.nvim_buf_clear_namespace(ctx.bufnr, hint_ns, 0, -1)
    for _, hint in ipairs(result or {}) do
      local label = hint.label
      if type(label) == 'table' then
        local parts = {}
        for _, part in ipairs(label) do
          table.insert(parts, part.value)
        end
        label = table.concat(parts)
      end
      pcall(vim.api.nvim_buf_set_extmark, ctx.bufnr, hint_ns, hint.position.line, 0, {
        virt_text = { { ' ' .. label, 'Comment' } },
        virt_text_pos = 'eol',
      })
    end
  end)
end

-- The virtual-text hints shown in a buffer, as { line (0-based), text }.
function M.shown_hints(bufnr)
  local shown = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr or 0, hint_ns, 0, -1, { details = true })) do
    local text = ''
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      text = text .. chunk[1]
    end
    table.insert(shown, { line = mark[2], text = text })
  end
  return shown
end

local function refresh_attached_hints()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    for _, client in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
      if client.name == 'faultlens' and vim.lsp.buf_is_attached(bufnr, client.id) then
        M.refresh_hints(bufnr)
      end
    end
  end
end

local handlers = {
  ['faultlens/status'] = function(_, result)
    local before = M.status and M.status.diagnosis and M.status.diagnosis.message
    M.status = result
    local now = result and result.diagnosis and result.diagnosis.message
    if now ~= before then
      vim.schedule(refresh_attached_hints)
    end
    if result and (result.state == 'error' or result.state == 'untrusted') then
      vim.notify('faultlens: ' .. tostring(result.message), vim.log.levels.INFO)
    end
  end,
  ['faultlens/scores'] = function(_, result)
    M.scores = result
  end,
}

local function refresh_lenses()
  pcall(vim.lsp.codelens.refresh)
end

function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == '' then
    return nil
  end
  local root = find_root(file)
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    local options = vim.tbl_extend('force', {}, M.config.settings, { trusted = is_trusted(root) })
    id = vim.lsp.start_client({
      name = 'faultlens',
      cmd = M.config.cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = options,
      settings = { faultlens = M.config.settings },
      handlers = handlers,
    })
    if id == nil then
      vim.notify('faultlens: could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- get_clients replaced get_active_clients in Neovim 0.10.
local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients

local function client_for_buf(bufnr)
  for _, client in pairs(get_clients()) do
    if client.name == 'faultlens' and vim.lsp.buf_is_attached(bufnr or 0, client.id) then
      return client
    end
  end
end

-- Runs faultlens.localize (build, run the tests, rank) in the current buffer's project.
function M.localize()
  local client = client_for_buf(0)
  if client == nil then
    vim.notify('faultlens: not attached to this buffer', vim.log.levels.WARN)
    return
  end
  client.request('workspace/executeCommand', { command = 'faultlens.localize', arguments = {} }, function(err, result)
    if err then
      vim.notify('faultlens: ' .. err.message, vim.log.levels.ERROR)
    elseif result and result.started == false then
      vim.notify('faultlens: ' .. tostring(result.reason), vim.log.levels.WARN)
    end
  end, 0)
end

-- Runs faultlens.diagnose (the formula-based diagnosis, from the last results).
function M.diagnose()
  local client = client_for_buf(0)
  if client == nil then
    vim.notify('faultlens: not attached to this buffer', vim.log.levels.WARN)
    return
  end
  client.request('workspace/executeCommand', { command = 'faultlens.diagnose', arguments = {} }, function(err, result)
    if err then
      vim.notify('faultlens: ' .. err.message, vim.log.levels.ERROR)
    elseif result and result.started == false then
      vim.notify('faultlens: ' .. tostring(result.reason), vim.log.levels.WARN)
    end
  end, 0)
end

-- Switches the measure lines are ranked by.
function M.set_measure(name)
  local client = client_for_buf(0)
  if client then
    client.request('workspace/executeCommand', { command = 'faultlens.setMeasure', arguments = { name } }, function() end, 0)
  end
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  local group = vim.api.nvim_create_augroup('faultlens', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.start(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd(M.config.codelens_events, {
    group = group,
    callback = function(args)
      if client_for_buf(args.buf) then
        refresh_lenses()
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
    group = group,
    callback = function(args)
      if client_for_buf(args.buf) then
        M.refresh_hints(args.buf)
      end
    end,
  })
  vim.api.nvim_create_user_command('FaultlensLocalize', M.localize, {})
  vim.api.nvim_create_user_command('FaultlensDiagnose', M.diagnose, {})
  vim.api.nvim_create_user_command('FaultlensMeasure', function(c)
    M.set_measure(c.args)
  end, { nargs = 1 })
  vim.api.nvim_create_user_command('FaultlensLens', function()
    vim.lsp.codelens.run()
  end, {})
end

return M
