//! Check 6: secrets by kind and persistence, for every tool.
//! - Private keys, cloud credentials and other processes' environments read by any tool (the
//!   shell included) → ask in a clean session, deny in a tainted one (`secret.read_key`).
//! - A file an earlier shell call of the session wrote secret data into, uploaded now → deny
//!   (`shell.secret_egress`, the earlier call as evidence); a file an earlier call downloaded,
//!   run now → deny (`shell.download_then_run`, as a download piped into a shell).
//! - Writes to persistence targets (`crate::policy::persist`) → ask in a clean session, deny in
//!   a tainted one (`persist.write`).
//! - A secret (a hit of the gitleaks rule set) in the arguments of a shell network command, or
//!   of any other call that reaches the network → deny (`secret.in_outbound`), whoever typed
//!   the destination (MCP and web-fetch arguments are the injection check's
//!   `secret.in_arguments`).
//! - A value the session read from a secret file (remembered by digest), in the arguments of a
//!   call that can reach the network, as written or encoded → deny (`secret.value_outbound`).
//! - Remembers (effect [`Effect::RecordFiles`]) the files this shell call writes secret data or
//!   a download into; `check::pre_tool` drops the effect when the call is denied.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::ToolKind;
use crate::policy::{persist, readwrite};
use crate::session::{Effect, FileKind, SessionFile};

/// Longest command text kept as a remembered file's source (bytes).
const SOURCE_MAX: usize = 200;

/// True when the call can carry data out: an MCP tool, a web fetch, a call that reaches the
/// network (a shell network command), or a tool of unknown kind.
fn can_send(call: &Call<'_>) -> bool {
    matches!(
        call.tool.kind,
        ToolKind::Mcp | ToolKind::WebFetch | ToolKind::Other
    ) || call.egress
}

/// The outbound-secret verdicts: rule-set secrets in a network call's arguments, and values
/// read from secret files in any call that can send.
fn outbound(call: &mut Call<'_>) {
    if !can_send(call) {
        return;
    }
    let name = call.name.clone();
    // MCP and web-fetch arguments are checked by the injection check (`secret.in_arguments`).
    if call.egress && !matches!(call.tool.kind, ToolKind::Mcp | ToolKind::WebFetch) {
        let hit = call.facts.leaves.iter().find_map(|(key, text)| {
            crate::policy::builtin::secret_material(text).map(|what| (key.clone(), what))
        });
        if let Some((key, what)) = hit {
            call.verdicts.add(
                Decision::new(
                    Verdict::Deny,
                    Reason::SecretInOutbound,
                    format!(
                        "argument '{key}' of {name} sends {what} to the network; pass it through an environment variable or a credential helper instead"
                    ),
                )
                .rule("secret.in_outbound"),
            );
        }
    }
    let known = &call.view.secret_digests;
    if known.is_empty() {
        return;
    }
    for (key, text) in &call.facts.leaves {
        let cands: std::collections::HashSet<String> =
            crate::policy::secret_values::candidates(text)
                .into_iter()
                .collect();
        if let Some((_, source)) = known.iter().find(|(d, _)| cands.contains(d)) {
            call.verdicts.add(
                Decision::new(
                    Verdict::Deny,
                    Reason::SecretValueOutbound,
                    format!(
                        "argument '{key}' of {name} carries a value this session read from a secret file ({source})"
                    ),
                )
                .rule("secret.value_outbound")
                .evidence(source.clone()),
            );
            return;
        }
    }
    windows_hit(call);
}

/// The window check of [`outbound`]: the call's argument texts, joined (so that a value split
/// across JSON fields or parameters is whole again), folded and looked up window by window
/// among the session's window digests (`crate::policy::secret_values::WindowMatcher`). Adds
/// the `secret.value_outbound` deny and returns true on a hit.
fn windows_hit(call: &mut Call<'_>) -> bool {
    let (Some(key), false) = (
        call.view.secret_window_key.as_deref(),
        call.view.secret_windows.is_empty(),
    ) else {
        return false;
    };
    let known: std::collections::HashSet<&str> = call
        .view
        .secret_windows
        .iter()
        .map(|(d, _)| d.as_str())
        .collect();
    let m = crate::policy::secret_values::WindowMatcher::new(key);
    let mut joined = String::new();
    for (_, text) in &call.facts.leaves {
        if joined.len() >= crate::policy::secret_values::WINDOW_TEXT_MAX * 4 {
            break;
        }
        joined.push_str(text);
    }
    // The text as sent, then its decoded forms (fullwidth folded, base64 and base32 at every
    // alignment: `crate::policy::secret_values::decoded_forms`).
    let hit = m.first_in(&joined, &known).or_else(|| {
        crate::policy::secret_values::decoded_forms(&joined)
            .iter()
            .find_map(|f| m.first_in(f, &known))
    });
    let Some(source) = hit.and_then(|d| {
        call.view
            .secret_windows
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, s)| s.clone())
    }) else {
        return false;
    };
    let name = call.name.clone();
    call.verdicts.add(
        Decision::new(
            Verdict::Deny,
            Reason::SecretValueOutbound,
            format!(
                "the arguments of {name} carry part of a value this session read from a secret file ({source}), changed (split, reversed, case-folded or joined)"
            ),
        )
        .rule("secret.value_outbound")
        .evidence(source),
    );
    true
}

/// Adds the secret-read, remembered-file and persistence verdicts, and the effect that
/// remembers this call's files.
pub fn check(call: &mut Call<'_>) {
    outbound(call);
    let tainted = call.view.session.tainted;
    let name = call.name.clone();
    let paths = &call.ctx.paths;
    let sh = call.facts.sh.as_ref();
    let sensitive = readwrite::secret_reads(&call.tool, sh, paths)
        .into_iter()
        .find(|(_, k)| k.read_is_sensitive());
    let read_flagged = sensitive.is_some();
    if let Some((p, k)) = sensitive {
        let (verdict, when) = if tainted {
            (Verdict::Deny, " in a tainted session")
        } else {
            (Verdict::Ask, "")
        };
        call.verdicts.add(
            Decision::new(
                verdict,
                Reason::SecretReadKey,
                format!("{name} reads {p}, {}{when}", k.describe()),
            )
            .rule("secret.read_key")
            .evidence(p),
        );
    }
    // A secret handed to a program the analysis does not know, in a tainted session: what
    // it does with the file (send it, print it) cannot be seen.
    if tainted && !read_flagged {
        let unknown = sh.and_then(|a| {
            a.plain_flows()
                .reads
                .iter()
                .find(|r| {
                    r.unknown
                        && !matches!(
                            r.kind,
                            crate::shell::SecretKind::Folder | crate::shell::SecretKind::EnvDump
                        )
                })
                .cloned()
        });
        if let Some(r) = unknown {
            call.verdicts.add(
                Decision::new(
                    Verdict::Deny,
                    Reason::SecretReadKey,
                    format!(
                        "{name} gives {} ({}) to a program IntentShield does not know, in a tainted session",
                        r.word,
                        r.kind.describe()
                    ),
                )
                .rule("secret.read_key")
                .evidence(r.word),
            );
        }
    }
    if let Some(d) = persist::check(&call.tool, sh, paths, tainted) {
        call.verdicts.add(d);
    }
    if call.tool.kind != ToolKind::Shell {
        return;
    }
    let Some(a) = sh else {
        return;
    };
    let remembered = &call.view.files;
    let resolve = |p: &str| paths.resolve(p).to_string_lossy().into_owned();
    let known = |p: &str| -> Option<String> {
        let r = resolve(p);
        remembered
            .iter()
            .find(|f| f.kind == FileKind::Secret && f.path == r)
            .map(|f| f.source.clone())
    };
    // With no secret file remembered, `known` never answers: the analysis's own flows (kept
    // from the earlier checks of this call) are the same.
    let with_known;
    let flows = if remembered.iter().any(|f| f.kind == FileKind::Secret) {
        with_known = a.secret_flows(&known);
        &with_known
    } else {
        a.plain_flows()
    };
    if let Some(s) = &flows.egress {
        if s.word.contains("(written by:") {
            call.verdicts.add(
                Decision::new(
                    Verdict::Deny,
                    Reason::SecretEgress,
                    format!("{name} sends a file an earlier call wrote secrets into ({}) to the network", s.word),
                )
                .rule("shell.secret_egress")
                .evidence(s.word.clone()),
            );
        }
    }
    for r in &flows.runs {
        let r = resolve(r);
        if let Some(f) = remembered
            .iter()
            .find(|f| f.kind == FileKind::Download && f.path == r)
        {
            call.verdicts.add(
                Decision::new(
                    Verdict::Deny,
                    Reason::PipeToShell,
                    format!(
                        "{name} runs {r}, which an earlier call downloaded ({}): code that was never seen",
                        f.source
                    ),
                )
                .rule("shell.download_then_run")
                .evidence(f.source.clone()),
            );
            break;
        }
    }
    let source = crate::text::cap(
        call.tool.shell_command().unwrap_or_default().as_ref(),
        SOURCE_MAX,
    )
    .to_string();
    let mut files: Vec<SessionFile> = Vec::new();
    for (p, _) in &flows.secret_files {
        files.push(SessionFile {
            path: resolve(p),
            kind: FileKind::Secret,
            source: source.clone(),
        });
    }
    for p in &flows.downloads {
        files.push(SessionFile {
            path: resolve(p),
            kind: FileKind::Download,
            source: source.clone(),
        });
    }
    files.retain(|f| !f.path.starts_with("/dev/"));
    if !files.is_empty() {
        call.effects.push(Effect::RecordFiles(files));
    }
}
