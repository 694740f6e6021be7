-- What the Neovim test scripts share: run(body) calls body(out, wait) and, whatever happens, writes
-- `out` (plus the error, if any) as JSON to $OUT and quits; test_neovim.py reads it.
local M = {}

function M.wait(ms, cond) return vim.wait(ms, cond, 50) end

function M.run(body)
  local out = {}
  local ok, err = xpcall(function() body(out, M.wait) end, debug.traceback)
  if not ok then out.error = err end
  local f = assert(io.open(vim.env.OUT, "w"))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

return M
