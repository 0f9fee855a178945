//! The files `setup` writes for the agent clients (their hooks and MCP server): the
//! clients' wiring, which is majordomus's own and never the work at hand (docs/RECALL.md,
//! "The work at hand"). A model of its own so that the reader of the work at hand names them
//! without depending on `setup`; setup's unit test checks the list names every file it
//! writes.

/// Every file setup writes, for every client.
pub const WIRING: &[&str] = &[
    ".claude/settings.json",
    ".mcp.json",
    ".gemini/settings.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".cursor/mcp.json",
    ".cursor/hooks.json",
];
