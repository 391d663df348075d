//! Read versus write, network egress and scope, for the taint review.
//!
//! Order (fails safe): the operator's `read_only_tools`, then the MCP catalog's read-only
//! decision, then MCP `annotations` are not trusted (a server can lie), then a name heuristic:
//! the first verb of the tool's name decides, and an unknown verb means write.

use crate::config::tool_pattern_matches;
use crate::event::{Tool, ToolKind};
use crate::session::CatalogTool;
use crate::shell;
use serde_json::Value;

const READ_VERBS: crate::strtab::StrTable = crate::str_table![
    "get",
    "list",
    "read",
    "search",
    "find",
    "fetch",
    "query",
    "show",
    "describe",
    "view",
    "lookup",
    "look",
    "count",
    "check",
    "inspect",
    "stat",
    "browse",
    "retrieve",
    "load",
    "echo",
    "ping",
    "status",
    "explain",
    "summarize",
    "summarise",
    "analyze",
    "analyse",
    "validate",
    "preview",
    "resolve",
    "whoami",
    "info",
    "select",
    "scan",
    "diff",
    "compare",
    "calculate",
    "compute",
    "convert",
    "translate",
    "parse",
    "download",
    "is",
    "has",
    "can",
    "verify",
    "test",
    "estimate",
    "recommend",
    "suggest",
    "peek",
    "tail",
    "head",
    "grep",
    "glob",
    "ls",
    "cat",
    "open",
    "lint",
    "format",
    "render",
    "evaluate",
    "eval",
    "sum",
    "add",
    "multiply",
    "math",
];

const WRITE_VERBS: crate::strtab::StrTable = crate::str_table![
    "send",
    "create",
    "update",
    "delete",
    "remove",
    "write",
    "post",
    "put",
    "patch",
    "set",
    "insert",
    "upload",
    "push",
    "publish",
    "transfer",
    "pay",
    "move",
    "copy",
    "rename",
    "share",
    "invite",
    "schedule",
    "cancel",
    "reply",
    "forward",
    "execute",
    "run",
    "exec",
    "call",
    "invoke",
    "install",
    "deploy",
    "merge",
    "commit",
    "close",
    "approve",
    "submit",
    "edit",
    "modify",
    "append",
    "save",
    "store",
    "enable",
    "disable",
    "grant",
    "revoke",
    "kill",
    "start",
    "stop",
    "restart",
    "reset",
    "book",
    "order",
    "purchase",
    "buy",
    "sell",
    "make",
    "apply",
    "launch",
    "trigger",
    "sync",
    "archive",
    "assign",
    "comment",
    "react",
    "star",
    "fork",
    "transfer",
    "reserve",
    "subscribe",
    "unsubscribe",
    "mark",
    "tag",
    "label",
    "note",
    "fill",
    "click",
    "type",
    "navigate",
    "press",
    "drag",
    "upsert",
    "replace",
    "clear",
    "drop",
];

/// Splits a tool name into lower-case words (`get_fileContents` → get, file, contents).
/// The words of a tool name (`sendMoney`, `send_money`, `send-money` → `send`, `money`).
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// True when the tool name's first known verb is a read verb. `add` counts as read only for
/// arithmetic-looking tools (`add(a, b)`); elsewhere (`add_member`) it is a write.
pub fn name_is_read(name: &str) -> bool {
    let w = words(name);
    for (i, word) in w.iter().enumerate() {
        if word == "add" && w.len() > i + 1 {
            return false;
        }
        if READ_VERBS.contains(word.as_str()) {
            return true;
        }
        if WRITE_VERBS.contains(word.as_str()) {
            return false;
        }
    }
    false
}

/// True when the call only reads. `sh` is the analysis of a shell call's command (computed
/// once per call by the caller).
pub fn is_read_only(
    tool: &Tool,
    sh: Option<&shell::Analysis>,
    catalog: Option<&CatalogTool>,
    read_only_tools: &[String],
) -> bool {
    let display = tool.display_name();
    if read_only_tools
        .iter()
        .any(|p| tool_pattern_matches(p, &display) || tool_pattern_matches(p, &tool.name))
    {
        return true;
    }
    if let Some(ro) = catalog.and_then(|c| c.read_only) {
        return ro;
    }
    match tool.kind {
        ToolKind::FileRead | ToolKind::WebFetch => true,
        ToolKind::FileWrite => false,
        ToolKind::Shell => sh.is_some_and(|a| {
            a.is_read_only()
                || a.all_commands().iter().all(|c| {
                    c.is_read_only()
                        || (super::tamper::is_read_only_guard_command(c) && c.writes().is_empty())
                })
        }),
        ToolKind::Mcp => {
            let t = tool
                .mcp
                .as_ref()
                .map_or(tool.name.as_str(), |m| m.tool.as_str());
            name_is_read(t)
        }
        ToolKind::Other => matches!(
            tool.name.as_str(),
            "TodoWrite"
                | "TodoRead"
                | "Task"
                | "ExitPlanMode"
                | "ListMcpResources"
                | "ListMcpResourcesTool"
                | "ReadMcpResourceTool"
                | "FetchMcpResource"
                | "write_todos"
                | "update_plan"
                | "view_image"
        ),
    }
}

/// Tool-name words of MCP tools that make HTTP requests (`fetch`, `http_request`,
/// `browse_url`): such a tool reaches the network ([`is_egress`]) and reads its URL like a web
/// fetch (`check::provenance::is_fetch_tool`, which adds `webpage` and `scrape`).
pub(crate) const HTTP_WORDS: crate::strtab::StrTable =
    crate::str_table!["fetch", "http", "request", "browse", "url", "navigate", "curl", "download",];

/// True when the call reaches the network: web fetches, network shell commands, MCP tools
/// whose name says fetch/http/request/browse/url/webhook/navigate.
pub fn is_egress(tool: &Tool, sh: Option<&shell::Analysis>) -> bool {
    match tool.kind {
        ToolKind::WebFetch => true,
        ToolKind::Shell => sh.is_some_and(shell::Analysis::is_network),
        ToolKind::Mcp => {
            let t = tool
                .mcp
                .as_ref()
                .map_or(tool.name.as_str(), |m| m.tool.as_str());
            words(t)
                .iter()
                .any(|w| HTTP_WORDS.contains(w.as_str()) || w == "webhook")
        }
        _ => false,
    }
}

/// Keys that name which resource a call reaches (a repository, project, channel...).
const SCOPE_KEYS: crate::strtab::StrTable = crate::str_table![
    "repo",
    "repository",
    "repositoryname",
    "reponame",
    "project",
    "projectid",
    "projectname",
    "org",
    "organization",
    "workspace",
    "channel",
    "channelname",
    "channelid",
    "database",
    "bucket",
    "drive",
    "team",
    "space",
    "spacekey",
    "board",
    "vault",
    "namespace",
    "cluster",
];

/// String values of scope keys in a call's arguments (top level only).
pub fn scope_values(input: &Value) -> Vec<String> {
    let Some(obj) = input.as_object() else {
        return Vec::new();
    };
    obj.iter()
        .filter(|(k, _)| {
            let n: String = k
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            SCOPE_KEYS.contains(n.as_str())
        })
        .filter_map(|(_, v)| v.as_str())
        .filter(|s| !s.is_empty() && s.len() <= 200)
        .map(str::to_string)
        .collect()
}

/// File paths a read tool reads ([`Tool::read_paths`], filled by the harness parser).
pub fn file_paths(tool: &Tool) -> Vec<String> {
    tool.read_paths.clone()
}

/// The secrets a call reads, by kind, whichever tool reads them: the Read tool's paths and the
/// shell's (`cat .env`, `head ~/.aws/credentials`, `ps eww`, `cat /proc/1/environ`; not keys
/// only used, `ssh -i KEY`). One function for both, so that the shell gets exactly the Read
/// tool's decision on the same path. Paths under the home folder are judged as `~/…`.
pub fn secret_reads(
    tool: &Tool,
    sh: Option<&shell::Analysis>,
    paths: &crate::paths::PathContext,
) -> Vec<(String, shell::SecretKind)> {
    let home_form = |p: &str| -> String {
        let r = paths.resolve(p);
        match paths.home.as_deref().and_then(|h| r.strip_prefix(h).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => format!("~/{}", rel.to_string_lossy()),
            _ => p.to_string(),
        }
    };
    let mut out = Vec::new();
    match tool.kind {
        ToolKind::FileRead => {
            for p in tool.read_paths.iter().take(256) {
                if let Some(k) = shell::secret_kind(&home_form(p)).or_else(|| shell::secret_kind(p))
                {
                    out.push((p.clone(), k));
                }
            }
        }
        ToolKind::Shell => {
            if let Some(a) = sh {
                // Only content the command shows: a key handed to the program that uses it
                // (`openvpn --secret KEY`, `step … root-ca.key`) is everyday work.
                for r in a.plain_flows().reads.iter().filter(|r| r.shown).take(256) {
                    let k = if r.path.contains(['*', '?', '[']) {
                        Some(r.kind)
                    } else {
                        shell::secret_kind(&home_form(&r.path)).or(Some(r.kind))
                    };
                    if let Some(k) = k {
                        out.push((r.word.clone(), k));
                    }
                }
            }
        }
        _ => {}
    }
    out.retain(|(_, k)| !matches!(k, shell::SecretKind::Folder | shell::SecretKind::EnvDump));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs() {
        for n in [
            "get_file_contents",
            "list_issues",
            "read_inbox",
            "search_code",
            "echo",
            "add",
        ] {
            assert!(name_is_read(n), "{n}");
        }
        for n in [
            "send_email",
            "create_pull_request",
            "write_note",
            "frobnicate",
            "add_member",
            "sendMoney",
        ] {
            assert!(!name_is_read(n), "{n}");
        }
    }
}
