//! The transparent MCP stdio proxy (`intentshield mcp-proxy -- <server command>`).
//!
//! To the client (Claude Code, Codex, Cursor, Gemini CLI...) the proxy is a stdio MCP server;
//! it launches the real server as a child and relays newline-delimited JSON-RPC both ways (MCP
//! stdio transport, spec 2025-06-18). Lines it does not inspect are forwarded byte for byte and
//! in order.
//!
//! # What the proxy sees that hooks never see
//!
//! A harness hook sees a tool call (name and arguments) and, after it, the result. It never
//! sees what the model was told about the tools: the `tools/list` descriptions and each tool's
//! `inputSchema` (its parameter names, descriptions, enums and defaults), the server's
//! `initialize` instructions, nor whether a tool's text changed since it was first seen. Those
//! are where MCP attacks live, and the proxy judges them:
//! - tool poisoning: instructions for the agent hidden in a description or schema (the
//!   description rules of [`crate::detect`]); the tool is quarantined and removed from the list;
//! - rug pulls: a tool whose fingerprint (name, title, description, input and output schemas,
//!   annotations) differs from its pin, or a server whose launch (command line and reported
//!   `serverInfo` version) changed, until the operator runs `intentshield mcp approve`;
//! - shadowing: a description that names another server's tool (the proxies of one machine
//!   share their catalogs through the database);
//! - self-disclosure parameters ([`disclosure::is_disclosure_field`], e.g. `llm_name`,
//!   `system_prompt`, `conversation_history`, or a description asking for them): removed from
//!   the schema the client sees, and withheld from the call.
//!
//! # What it inspects
//!
//! - `tools/list` results (every page): each tool goes through [`catalog::record_tools`]
//!   (description rules, fingerprint pin, rug pull, shadowing). Quarantined tools are removed
//!   from the page; self-disclosure parameters are removed from the schema the client sees
//!   ([`strip_schema`]).
//! - `tools/call` requests, judged in this order: a re-list in flight is waited for (at most
//!   [`RELIST_WAIT`]); a tool hidden in this session, or one the catalog quarantines, has
//!   drifted from its pin or was never listed, is refused; arguments that carry injected
//!   instructions are refused; otherwise stripped self-disclosure parameters are removed (a
//!   required one is sent empty) and other self-disclosure values rewritten, and the call is
//!   relayed. A refusal is a JSON-RPC error [`REFUSED`] that says so (never "tool not found"),
//!   and is audited (harness `mcp`).
//! - `tools/call` results: text, embedded resources and structured content are scanned as tool
//!   output; an injected result gets a leading notice telling the model it is data, and the
//!   values in it are recorded catalog-wide for the hook (`Origin::OutputInjected`, session `*`).
//! - `resources/read` results: text contents scanned the same way; an injected one gets a
//!   leading notice item.
//! - `initialize` results: the launch pin (command line and reported server version) and the
//!   server's `instructions` (removed when injected).
//! - `notifications/initialized` from the client and `notifications/tools/list_changed` from
//!   the server: relayed, and the proxy lists the tools itself (ids `"intentshield:relist:N"`,
//!   answered to the proxy only; calls wait for it, at most [`RELIST_WAIT`]) so a tool that
//!   changed, since the last run or mid-session, is refused even if the client calls from a
//!   cached list and never re-lists.
//!
//! Robustness: lines are bounded ([`MAX_LINE`]; an oversized server response is turned into
//! an error for its request), the catalog is bounded ([`MAX_TOOLS`] per session), malformed
//! JSON is relayed untouched, a server that exits answers every pending request with
//! [`SERVER_GONE`], a client that closes stdin ends the server (closed stdin, then a kill after
//! [`GRACE`]), and the server's stderr is inherited.
//!
//! # Layout
//!
//! - [`framing`]: bounded line reading and writing, JSON-RPC errors, dispatch over a message
//!   or a batch.
//! - [`relay`]: the server child, the two relay threads, shutdown, settings and store.
//! - [`intercept`]: the shared session state and the handler of each inspected message.
//! - [`launch`]: the server's name and launch pin from its command.
//!
//! [`catalog::record_tools`]: crate::catalog::record_tools
//! [`disclosure::is_disclosure_field`]: crate::policy::disclosure::is_disclosure_field

pub mod framing;
pub mod intercept;
pub mod launch;
pub mod relay;

pub use framing::{read_line, Line, MAX_LINE};
pub use intercept::{strip_schema, MAX_PENDING, MAX_TOOLS, REFUSED, RELIST_WAIT};
pub use launch::{default_name, floating_package, launch_pin, package_arg};
pub use relay::{load_config, run, Options, GRACE, SERVER_GONE};
