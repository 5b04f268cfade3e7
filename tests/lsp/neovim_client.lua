-- Drives `git intent lsp` from headless Neovim (0.7+, Debian's package) the way a user's config does:
-- start the client, open a file, hover two lines, request code lenses, and write what Neovim got and
-- showed as JSON. Inputs from the environment: GI_CMD (JSON list), GI_ROOT, GI_FILE, GI_LINES (JSON list of
-- 1-based lines to hover), GI_OUT (the JSON file to write). An empty GI_CMD: the user's config (the plugin
-- `git intent install --editor neovim --write` wrote) starts and attaches the client.
local out = {hovers = {}, floats = {}, lenses = {}, errors = {}}
local function finish()
  local handle = io.open(os.getenv("GI_OUT"), "w")
  handle:write(vim.fn.json_encode(out))
  handle:close()
  vim.cmd("qa!")
end

local ok, problem = pcall(function()
  local ready = false
  local id
  if os.getenv("GI_CMD") ~= "" then
    id = vim.lsp.start_client({
      name = "git-intent",
      cmd = vim.fn.json_decode(os.getenv("GI_CMD")),
      root_dir = os.getenv("GI_ROOT"),
      on_init = function() ready = true end,
    })
    assert(id, "vim.lsp.start_client failed")
  end
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("GI_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  if id then
    vim.lsp.buf_attach_client(buf, id)
  else
    assert(vim.wait(20000, function()
      for _, found in pairs(vim.lsp.buf_get_clients(buf)) do
        if found.name == "git-intent" then id = found.id return true end
      end
      return false
    end, 50), "the user's config attached no git-intent client")
    ready = true
  end
  assert(vim.wait(20000, function() return ready and vim.lsp.get_client_by_id(id).initialized end, 50),
         "the server did not initialize")
  local client = vim.lsp.get_client_by_id(id)
  out.server = client.server_capabilities and client.server_capabilities.hoverProvider or
    (client.resolved_capabilities and client.resolved_capabilities.hover)

  for _, line in ipairs(vim.fn.json_decode(os.getenv("GI_LINES"))) do
    local params = {textDocument = vim.lsp.util.make_text_document_params(buf),
                    position = {line = line - 1, character = 0}}
    local reply = client.request_sync("textDocument/hover", params, 20000, buf)
    assert(reply and not reply.err, "hover failed: " .. vim.inspect(reply))
    table.insert(out.hovers, reply.result and reply.result.contents.value or vim.NIL)
    -- What a user sees: the hover float Neovim opens (markdown stylized, fences hidden).
    vim.api.nvim_win_set_cursor(0, {line, 0})
    local before = #vim.api.nvim_list_wins()
    vim.lsp.buf.hover()
    local float
    vim.wait(20000, function()
      for _, win in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(win).relative ~= "" then float = win return true end
      end
      return false
    end, 50)
    assert(float, "no hover window opened (" .. before .. " windows)")
    table.insert(out.floats, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false))
    vim.api.nvim_win_close(float, true)
  end

  vim.lsp.codelens.refresh()
  assert(vim.wait(20000, function()
    local lenses = vim.lsp.codelens.get(buf)
    if #lenses == 0 then return false end
    for _, lens in ipairs(lenses) do
      if not lens.command then return false end
    end
    return true
  end, 50), "code lenses were not resolved")
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(out.lenses, {start = lens.range.start.line + 1, ["end"] = lens.range["end"].line + 1,
                              title = lens.command.title, command = lens.command.command})
  end
  vim.lsp.stop_client(id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 50)
end)
if not ok then table.insert(out.errors, tostring(problem)) end
finish()
