-- memory-lsp for Neovim: starts `memory-lsp serve` beside your other language servers, keeps its
-- code lenses fresh and adds :MemoryTeach, :MemoryImpact, :MemorySearch and :MemoryContext.
-- Works on Neovim 0.7 (Debian 12: no vim.fs, no vim.lsp.start, no window/showDocument) and 0.10+.
local M = {}

local api, uv = vim.api, vim.loop

M.defaults = {
  name = "memory-lsp",
  -- nil: the project's .venv/bin/memory-lsp when there is one, else `memory-lsp` on PATH
  cmd = nil,
  filetypes = { "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
                "go", "rust", "c", "cpp", "java", "ruby" },
  root_markers = { ".memory", ".git", "pyproject.toml", "setup.py", "package.json", "go.mod",
                   "Cargo.toml", "pom.xml", "build.gradle", "Gemfile", "Makefile" },
  init_options = {},  -- the settings tree of the README, e.g. { codeLens = { depth = 2 } }
  codelens = true,    -- refresh lenses on attach, BufEnter, InsertLeave and BufWritePost
  on_attach = nil,    -- function(client, bufnr), called after ours
}
M.config = vim.deepcopy(M.defaults)
M.types = { "gotcha", "policy", "decision", "dead_end", "requirement", "error_pattern",
            "workflow_recipe", "module_insight", "preference", "pattern", "causal_dependency", "fact" }

local clients_by_root = {}  -- 0.7 only: vim.lsp.start reuses clients itself

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function dirname(path)
  return vim.fn.fnamemodify(path, ":h")
end

--- The nearest folder above `path` holding one of the root markers (vim.fs.root without vim.fs).
function M.find_root(path)
  local dir = path ~= "" and dirname(vim.fn.fnamemodify(path, ":p")) or vim.fn.getcwd()
  -- a teach draft (.memory/drafts/x.md) belongs to the workspace above .memory
  local drafts = dir:match("^(.*)/%.memory/drafts$")
  if drafts then
    return drafts
  end
  while true do
    for _, marker in ipairs(M.config.root_markers) do
      if exists(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = dirname(dir)
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

local function command_for(root)
  if M.config.cmd then
    return M.config.cmd
  end
  local venv = root .. "/.venv/bin/memory-lsp"
  if vim.fn.executable(venv) == 1 then
    return { venv, "serve" }
  end
  return { "memory-lsp", "serve" }
end

local function is_draft(path)
  return path:match("/%.memory/drafts/[^/]+%.md$") ~= nil
end

-- window/showDocument, which the teach-draft flow needs; the selection is clamped to the buffer
local function show_document(_, result, ctx)
  local uri = result and result.uri
  if not uri then
    return { success = false }
  end
  if result.external then
    return { success = false }
  end
  local bufnr = vim.uri_to_bufnr(uri)
  vim.fn.bufload(bufnr)
  if result.takeFocus ~= false then
    api.nvim_win_set_buf(0, bufnr)
    local sel = result.selection
    if sel then
      local last = api.nvim_buf_line_count(bufnr)
      local line = math.min(sel.start.line + 1, last)
      local width = #(api.nvim_buf_get_lines(bufnr, line - 1, line, false)[1] or "")
      api.nvim_win_set_cursor(0, { line, math.min(sel.start.character, width) })
    end
  end
  -- a buffer loaded by bufload has no filetype event yet: attach it so its save reaches us
  M.attach(bufnr, ctx and ctx.client_id)
  return { success = true }
end

local function codelens_refresh_handler(_, _, ctx)
  -- workspace/codeLens/refresh (0.7 has no handler): refresh the visible buffers of this client
  for _, win in ipairs(api.nvim_list_wins()) do
    local bufnr = api.nvim_win_get_buf(win)
    if vim.lsp.buf_is_attached(bufnr, ctx.client_id) then
      api.nvim_buf_call(bufnr, function() pcall(vim.lsp.codelens.refresh) end)
    end
  end
  return vim.NIL
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.showDocument = { support = true }
  caps.workspace = caps.workspace or {}
  caps.workspace.codeLens = { refreshSupport = true }
  return caps
end

local function handlers()
  -- ours on every version, for this client only: 0.7 has none, and 0.10+'s fails with "Cursor
  -- position outside buffer" on the draft's selection (the empty line after its last newline,
  -- a line Neovim's buffer does not have)
  local out = { ["window/showDocument"] = show_document }
  if not vim.lsp.handlers["workspace/codeLens/refresh"] then
    out["workspace/codeLens/refresh"] = codelens_refresh_handler
  end
  return out
end

local function refresh_lenses(bufnr)
  if M.config.codelens and api.nvim_buf_is_loaded(bufnr) and bufnr == api.nvim_get_current_buf() then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })  -- 0.7 takes no argument: the current buffer
  end
end

local function on_attach(client, bufnr)
  if M.config.codelens and not is_draft(api.nvim_buf_get_name(bufnr)) then
    local group = api.nvim_create_augroup("memory_lsp_lens_" .. bufnr, { clear = true })
    api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group, buffer = bufnr, callback = function() refresh_lenses(bufnr) end,
    })
    refresh_lenses(bufnr)
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local function client_config(root)
  return {
    name = M.config.name,
    cmd = command_for(root),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    -- an empty Lua table would be sent as [] (settings must be an object)
    init_options = next(M.config.init_options) and M.config.init_options or vim.empty_dict(),
    capabilities = capabilities(),
    handlers = handlers(),
    on_attach = on_attach,
  }
end

--- Attach buffer `bufnr` to the memory-lsp client of its workspace, starting one if needed.
function M.attach(bufnr, client_id)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if client_id and vim.lsp.buf_is_attached(bufnr, client_id) then
    return
  end
  local root = M.find_root(api.nvim_buf_get_name(bufnr))
  if not root then
    return
  end
  if vim.lsp.start then  -- 0.8+: reuses the client with this name and root
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client(client_config(root))
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- The memory-lsp client attached to `bufnr` (the current buffer by default).
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(list) do
    if client.name == M.config.name then
      return client
    end
  end
  return nil
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  local wanted = {}
  for _, ft in ipairs(M.config.filetypes) do
    wanted[ft] = true
  end
  local group = api.nvim_create_augroup("memory_lsp", { clear = true })
  local function maybe(bufnr)
    local name = api.nvim_buf_get_name(bufnr)
    if wanted[vim.bo[bufnr].filetype] or is_draft(name) then
      M.attach(bufnr)
    end
  end
  api.nvim_create_autocmd("FileType", { group = group, callback = function(args) maybe(args.buf) end })
  api.nvim_create_autocmd("BufReadPost", { group = group, pattern = "*/.memory/drafts/*.md",
                                            callback = function(args) maybe(args.buf) end })
  require("memory_lsp.commands").define(M)
  for _, bufnr in ipairs(api.nvim_list_bufs()) do  -- buffers opened before setup
    if api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype ~= "" then
      maybe(bufnr)
    end
  end
end

return M
