-- Driven by test_neovim.py: teach twice. First the way any client can, through the "Teach a
-- memory" code action: the server opens a draft (window/showDocument, which the package adds on
-- 0.7), we write the text under `text:` and :w. Then with :MemoryTeach, which prompts.
dofile(vim.env.HARNESS).run(function(out, wait)
  local ml = require("memory_lsp")
  out.messages = {}
  vim.lsp.handlers["window/showMessage"] = function(_, result)
    table.insert(out.messages, result.message)
  end
  ml.setup({ cmd = { vim.env.SERVER, "serve" } })
  vim.cmd("edit " .. vim.env.PROJ .. "/app/core.py")
  local core = vim.api.nvim_get_current_buf()
  out.attached = wait(20000, function() return ml.client() ~= nil and ml.client().initialized end)
  vim.api.nvim_win_set_cursor(0, { 13, 8 })  -- in Store.add
  out.actions = {}
  local chosen = false
  vim.ui.select = function(items, opts, on_choice)  -- the user picks the teach action
    for _, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(out.actions, title)
      if title == "Teach a memory about Store.add" then  -- (before the index: "about app/core.py")
        chosen = true
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  wait(40000, function()  -- before the index is ready the actions are fewer: ask again
    out.actions = {}
    vim.lsp.buf.code_action()
    return wait(3000, function() return chosen end)
  end)
  wait(30000, function() return vim.api.nvim_get_current_buf() ~= core end)  -- the draft shows
  out.draft = vim.api.nvim_buf_get_name(0)
  out.draft_text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  out.draft_attached = wait(10000, function() return ml.client(0) ~= nil end)
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { vim.env.DRAFT_TEXT })
  vim.cmd("write")
  out.draft_deleted = wait(20000, function() return vim.fn.filereadable(out.draft) == 0 end)
  -- the server deletes the draft, then says so: on a loaded machine the message came after the rest ran
  wait(10000, function()
    for _, m in ipairs(out.messages) do
      if m:sub(-#"the draft is deleted") == "the draft is deleted" then return true end
    end
    return false
  end)

  -- :MemoryTeach on lines 4-6 (a visual range): text from vim.ui.input, type from vim.ui.select
  vim.api.nvim_set_current_buf(core)
  vim.ui.input = function(opts, on_confirm)
    out.input_prompt = opts.prompt
    on_confirm(vim.env.PROMPT_TEXT)
  end
  vim.ui.select = function(items, opts, on_choice)
    out.types = items
    on_choice("dead_end")
  end
  vim.cmd("4,6MemoryTeach")
  local log = vim.env.PROJ .. "/.memory/events.jsonl"
  out.prompted_stored = wait(20000, function()
    return table.concat(vim.fn.readfile(log), "\n"):find(vim.env.PROMPT_TEXT, 1, true) ~= nil
  end)
end)
