//! What a tool's name and arguments say it does: removes, writes, or runs a command line.

use crate::event::{Tool, ToolKind};

/// Tool names that remove or move what their path argument names (`delete_file`,
/// `move_directory`, `fs_rm`, `purge`).
pub(super) fn removes(tool_name: &str) -> bool {
    let n = tool_name.to_ascii_lowercase();
    let words: Vec<&str> = n.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    [
        "delete", "remove", "move", "rename", "trash", "unlink", "rmdir", "purge", "erase", "wipe",
        "destroy",
    ]
    .iter()
    .any(|w| n.contains(w))
        || words
            .iter()
            .any(|w| matches!(*w, "rm" | "mv" | "drop" | "clear" | "clean"))
}

/// Tool names with a verb that writes anywhere in them (`read_write_file`,
/// `get_or_create_file`, `list_and_delete`): the read-only classification goes by the first
/// verb, which a name can choose.
pub(super) fn writes_by_name(tool_name: &str) -> bool {
    let n = tool_name.to_ascii_lowercase();
    removes(&n)
        || [
            "write",
            "edit",
            "create",
            "put",
            "save",
            "update",
            "set",
            "upload",
            "patch",
            "append",
            "insert",
            "replace",
            "copy",
            "mkdir",
            "touch",
            "chmod",
            "exec",
            "run",
            "install",
            "apply",
            "commit",
            "modify",
            "overwrite",
        ]
        .iter()
        .any(|w| n.contains(w))
}

/// The shell command lines an MCP or other tool is given to run (`execute_command`,
/// `start_process`, `run {"cmd": …}`): string arguments under a key named like a command.
pub(super) fn embedded_commands(tool: &Tool, leaves: &[(String, String)]) -> Vec<String> {
    if matches!(
        tool.kind,
        ToolKind::Shell | ToolKind::FileWrite | ToolKind::FileRead
    ) {
        return Vec::new();
    }
    leaves
        .iter()
        .filter(|(k, _)| {
            let last = k
                .rsplit(['.', '/', '['])
                .next()
                .unwrap_or(k)
                .trim_end_matches(']')
                .to_ascii_lowercase();
            matches!(
                last.as_str(),
                "command"
                    | "cmd"
                    | "script"
                    | "shell"
                    | "commandline"
                    | "command_line"
                    | "bash"
                    | "sh"
                    | "exec"
                    | "code"
            )
        })
        .map(|(_, s)| s.clone())
        .take(8)
        .collect()
}
