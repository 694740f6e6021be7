-- :MemoryTeach, :MemoryImpact, :MemorySearch, :MemoryContext: each runs one `memory.*` command
-- through workspace/executeCommand and shows the answer in the quickfix list or a floating window.
local C = {}

local api = vim.api
local M  -- memory_lsp (init.lua), set by define()

local function notify(msg, level)
  vim.notify("memory-lsp: " .. msg, level or vim.log.levels.INFO)
end

-- client:request from 0.11 (client.request is deprecated there); 0.7-0.10 have no self argument
local function request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end
C.request = request

--- Run `memory.<name>` with `arguments` in the current buffer's workspace; on_result(result).
function C.run(name, arguments, on_result, bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify("no memory-lsp server for this buffer (:lua require('memory_lsp').attach())", vim.log.levels.WARN)
    return
  end
  local params = { command = name, arguments = { arguments } }
  request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(name .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end, bufnr)
end

local function relative(bufnr)
  local client = M.client(bufnr)
  local root = client and client.config.root_dir or vim.fn.getcwd()
  local path = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":p")
  if path:sub(1, #root + 1) == root .. "/" then
    return path:sub(#root + 2), root
  end
  return path, root
end

local function first_line(lines)
  if type(lines) == "table" then
    return lines[1] or 1
  elseif type(lines) == "string" then
    return tonumber(lines:match("^(%d+)")) or 1
  elseif type(lines) == "number" then
    return lines
  end
  return 1
end

local function to_quickfix(title, root, items)
  vim.fn.setqflist({}, " ", { title = title, items = items })
  if #items > 0 then
    vim.cmd("copen")
  else
    notify(title .. ": nothing found")
  end
  return root
end

--- A floating window holding `text` (closed with q or on leaving it).
function C.float(title, text)
  local lines = vim.split(text, "\n", { plain = true })
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.floor(vim.o.columns * 0.8))
  local height = math.max(1, math.min(#lines, math.floor(vim.o.lines * 0.7)))
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].modifiable = false
  local win = api.nvim_open_win(buf, true, { relative = "editor", style = "minimal", border = "single",
    width = width, height = height, row = math.floor((vim.o.lines - height) / 2),
    col = math.floor((vim.o.columns - width) / 2) })
  vim.keymap.set("n", "q", function() api.nvim_win_close(win, true) end, { buffer = buf })
  vim.b[buf].memory_lsp_title = title
  return buf, win
end

-- :MemoryTeach [text]: the text (asked with vim.ui.input unless given) and a type (vim.ui.select)
-- about the current line or the visual range.
function C.teach(opts)
  local bufnr = api.nvim_get_current_buf()
  local rel = relative(bufnr)
  local first, last = opts.line1, opts.line2
  local cite = first == last and (rel .. ":" .. first) or (rel .. ":" .. first .. "-" .. last)
  local function store(text)
    if not text or vim.trim(text) == "" then
      return notify("nothing taught (no text)")
    end
    vim.ui.select(M.types, { prompt = "Memory type" }, function(type_)
      if not type_ then
        return notify("nothing taught (no type)")
      end
      C.run("memory.teach", { text = text, type = type_, cite = { cite } }, function(result)
        local verb = result.created and "stored" or "already known as"
        notify(verb .. " memory " .. result.id .. " (" .. cite .. ")")
        for _, w in ipairs(result.warnings or {}) do
          notify(w, vim.log.levels.WARN)
        end
      end, bufnr)
    end)
  end
  if opts.args and opts.args ~= "" then
    store(opts.args)
  else
    vim.ui.input({ prompt = "Memory about " .. cite .. ": " }, store)
  end
end

-- The target under the cursor for impact: `path::Qualified.Name` of the innermost indexed symbol
-- whose name contains the word under the cursor and starts at or above it, else the file.
local function target_at_cursor(bufnr, callback)
  local rel = relative(bufnr)
  local word = vim.fn.expand("<cword>")
  local line = api.nvim_win_get_cursor(0)[1] - 1
  local client = M.client(bufnr)
  if word == "" or not client then
    return callback(rel)
  end
  local uri = vim.uri_from_bufnr(bufnr)
  request(client, "workspace/symbol", { query = word }, function(err, symbols)
    local best
    for _, s in ipairs(err == nil and symbols or {}) do
      local start = s.location.range and s.location.range.start.line or 0
      if s.location.uri == uri and start <= line and (not best or start > best.start) then
        best = { start = start, target = s.containerName .. "::" .. s.name }
      end
    end
    if not best then  -- the word names a symbol of another file
      for _, s in ipairs(err == nil and symbols or {}) do
        local short = s.name:match("([^.]+)$")
        if short == word then
          best = { target = s.containerName .. "::" .. s.name }
          break
        end
      end
    end
    callback(best and best.target or rel)
  end, bufnr)
end

-- :MemoryImpact [target]: what depends on the symbol under the cursor, in the quickfix list.
function C.impact(opts)
  local bufnr = api.nvim_get_current_buf()
  local function show(target)
    C.run("memory.impact", { target = target }, function(result)
      local _, root = relative(bufnr)
      local items = {}
      for _, d in ipairs(result.dependents or {}) do
        local via = d.edge_kinds and table.concat(d.edge_kinds, ", ") or ""
        table.insert(items, { filename = root .. "/" .. d.path, lnum = first_line(d.lines),
          text = string.format("%s (depth %d%s)", d.symbol or d.path, d.depth or 1,
                               via ~= "" and ("; " .. via) or "") })
      end
      -- uses the graph has no edge for: a method read as an attribute (found by name), a function or
      -- class used without a call where it is imported
      local how = result.reads_kind == "value" and "uses it without a call" or "reads it; found by name"
      for _, r in ipairs(result.reads or {}) do
        local who = (r.symbol and r.symbol ~= vim.NIL) and r.symbol or (r.path .. " module level")
        table.insert(items, { filename = root .. "/" .. r.path, lnum = first_line(r.lines),
          text = string.format("%s (%s)", who, how) })
      end
      to_quickfix("memory impact: " .. result.target, root, items)
    end, bufnr)
  end
  if opts.args and opts.args ~= "" then
    show(opts.args)
  else
    target_at_cursor(bufnr, show)
  end
end

-- :MemorySearch {query}: memories and code, in the quickfix list.
function C.search(opts)
  local bufnr = api.nvim_get_current_buf()
  local function show(query)
    if not query or vim.trim(query) == "" then
      return
    end
    C.run("memory.search", { query = query }, function(result)
      local _, root = relative(bufnr)
      local items = {}
      for _, r in ipairs(result.results or {}) do
        local path, lnum = r.path, first_line(r.lines)
        if not path and r.citations and r.citations[1] then
          path, lnum = r.citations[1].path, first_line(r.citations[1].lines)
        end
        local label = r.kind == "memory" and string.format("[%s] %s", r.type or "memory", r.text or "")
                      or (r.symbol or r.text or "")
        table.insert(items, { filename = path and (root .. "/" .. path) or nil, lnum = lnum,
                              text = (label:gsub("\n", " ")) })
      end
      to_quickfix("memory search: " .. query, root, items)
    end, bufnr)
  end
  if opts.args and opts.args ~= "" then
    show(opts.args)
  else
    vim.ui.input({ prompt = "Search memories and code: " }, show)
  end
end

-- :MemoryContext [query]: the memories and code that matter for this file, in a floating window.
function C.context(opts)
  local bufnr = api.nvim_get_current_buf()
  local arguments = { file = { (relative(bufnr)) } }
  if opts.args and opts.args ~= "" then
    arguments.query = opts.args
  end
  C.run("memory.context", arguments, function(result)
    C.float("memory context", result.text or "")
  end, bufnr)
end

-- :MemoryHover: memory-lsp's hover alone in a floating window (K shows one server's hover when
-- several answer, before Neovim 0.11)
function C.hover()
  local bufnr = api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return notify("no memory-lsp server for this buffer", vim.log.levels.WARN)
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  request(client, "textDocument/hover", params, function(err, result)
    if err or not result or not result.contents then
      return notify("nothing to say here")
    end
    C.float("memory hover", result.contents.value or tostring(result.contents))
  end, bufnr)
end

function C.define(memory_lsp)
  M = memory_lsp
  local add = api.nvim_create_user_command
  add("MemoryTeach", C.teach, { nargs = "?", range = true, desc = "memory-lsp: teach a memory about these lines" })
  add("MemoryImpact", C.impact, { nargs = "?", desc = "memory-lsp: what depends on the symbol under the cursor" })
  add("MemorySearch", C.search, { nargs = "?", desc = "memory-lsp: search memories and code" })
  add("MemoryHover", C.hover, { desc = "memory-lsp: the memories about the symbol under the cursor" })
  add("MemoryContext", C.context, { nargs = "?", desc = "memory-lsp: the context of this file" })
end

return C
