-- Driven by test_neovim.py: open app/core.py, then hover on `parse`, :MemoryImpact on it, wait
-- for the resolved code lenses and run :MemorySearch and :MemoryContext; the answers go to $OUT.
dofile(vim.env.HARNESS).run(function(out, wait)
  local ml = require("memory_lsp")
  ml.setup({ cmd = { vim.env.SERVER, "serve" } })
  vim.cmd("edit " .. vim.env.PROJ .. "/app/core.py")
  local core = vim.api.nvim_get_current_buf()
  out.attached = wait(20000, function() return ml.client() ~= nil and ml.client().initialized end)
  -- the first hovers may come before the index: ask until the memory shows (or give up)
  wait(40000, function()
    local replies = vim.lsp.buf_request_sync(0, "textDocument/hover",
      { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 3, character = 5 } }, 5000)
    for _, reply in pairs(replies or {}) do
      if reply.result and reply.result.contents then
        out.hover = reply.result.contents.value
      end
    end
    return out.hover ~= nil and out.hover:find("comma", 1, true) ~= nil
  end)
  -- :MemoryHover: the same hover in a float of its own
  vim.api.nvim_win_set_cursor(0, { 4, 5 })
  vim.cmd("MemoryHover")
  if wait(10000, function() return vim.api.nvim_get_current_buf() ~= core end) then
    out.hover_float = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.api.nvim_win_close(0, true)
  end
  -- :MemoryImpact with the cursor on `parse`; the call graph loads after the index, so ask again
  wait(30000, function()
    vim.cmd("cclose")  -- :MemoryImpact opens the quickfix window: come back to the code
    vim.api.nvim_set_current_buf(core)
    vim.api.nvim_win_set_cursor(0, { 4, 5 })
    vim.fn.setqflist({}, "r")
    vim.cmd("MemoryImpact")
    wait(5000, function() return #vim.fn.getqflist() > 0 end)
    out.impact = {}
    for _, item in ipairs(vim.fn.getqflist()) do
      table.insert(out.impact, { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p"),
                                 lnum = item.lnum, text = item.text })
    end
    return #out.impact >= 2
  end)
  out.impact_title = vim.fn.getqflist({ title = 1 }).title
  -- a method read as an attribute, named on the command line: its reader comes as found by name
  vim.cmd("cclose")  -- back to the code: the command asks the server of the current buffer
  vim.api.nvim_set_current_buf(core)
  vim.fn.setqflist({}, "r")
  vim.cmd("MemoryImpact app/hooks.py::Hooks.on_add")
  wait(10000, function() return #vim.fn.getqflist() > 0 end)
  out.reads = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(out.reads, { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p"), lnum = item.lnum, text = item.text })
  end
  vim.cmd("cclose")
  vim.api.nvim_set_current_buf(core)
  vim.fn.setqflist({}, "r")
  vim.cmd("MemoryImpact app/hooks.py::log_row")  -- a function handed on
  wait(10000, function() return #vim.fn.getqflist() > 0 end)
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(out.reads, { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p"), lnum = item.lnum, text = item.text })
  end
  vim.cmd("cclose")
  vim.api.nvim_set_current_buf(core)
  -- lenses: refreshed on attach and BufEnter by the package, resolved lazily by Neovim
  wait(20000, function()
    for _, lens in ipairs(vim.lsp.codelens.get(core)) do
      if lens.range.start.line == 3 and lens.command then
        out.lens = lens.command.title
        return true
      end
    end
    vim.cmd("doautocmd BufEnter")
    return false
  end)
  vim.fn.setqflist({}, "r")
  vim.cmd("MemorySearch quotes comma")
  wait(15000, function() return #vim.fn.getqflist() > 0 end)
  out.search = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(out.search, item.text)
  end
  vim.cmd("cclose")
  vim.api.nvim_set_current_buf(core)
  vim.cmd("MemoryContext")
  wait(15000, function() return vim.api.nvim_get_current_buf() ~= core end)
  out.context = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  out.context_floating = vim.api.nvim_win_get_config(0).relative ~= ""
end)
