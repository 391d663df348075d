//! Check 6: provenance. A value that came from an output flagged as injected (or a poisoned
//! tool description) and never from the user → deny. A destination that came only from tool
//! outputs → ask. A destination nobody showed (the user never typed it and no output held it:
//! it came from a tool description the hook cannot see, or the model made it up) → ask, deny
//! in a tainted session (`provenance.unknown_destination`). For tools that send, pay,
//! transfer, invite, share, merge or publish, the destination must be the user's words or on
//! the config's `[[trusted_destinations]]` (`provenance.critical_destination`); a call that
//! fills an invitee argument (`participants`, `attendees`, `share_with`) counts as such a tool.
//! Once the user keeps lists (`[[trusted_destinations]]` or contract registries), such a
//! destination on none of them is denied, not asked (rule `provenance.untrusted_critical`).
//! An account's credential or recovery setting (a password, a PIN, the account's e-mail or
//! phone) set to a value the user never typed → ask, deny in a tainted session
//! (`provenance.untrusted_credential`): account takeover.
//!
//! Exempt everywhere: `[[trusted_destinations]]`, this machine (`localhost`, loopback), the
//! workspace's own paths.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::policy::readwrite;
use crate::provenance::{self, kind, Val};

/// True for a tool whose name says it moves money (`send_money`, `create_transfer`,
/// `create_payout`, `schedule_payment`, `withdraw`, `wallet__send`).
fn moves_money(tool: &Tool) -> bool {
    let server = tool.mcp.as_ref().map_or("", |m| m.server.as_str());
    let name = tool
        .mcp
        .as_ref()
        .map_or(tool.name.as_str(), |m| m.tool.as_str());
    let words = readwrite::words(name);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "money"
                | "pay"
                | "payment"
                | "payments"
                | "payout"
                | "transfer"
                | "withdraw"
                | "remit"
                | "wire"
                | "transaction"
        )
    }) || (server.contains("wallet") && words.iter().any(|w| w == "send"))
}

/// Tool-name verbs whose destination argument is critical: where money, messages, access or
/// code go (`send_money`, `share_file`, `invite_user`, `merge_pull_request`, `publish`).
const CRITICAL_VERBS: crate::strtab::StrTable = crate::str_table![
    "send",
    "pay",
    "payment",
    "transfer",
    "invite",
    "share",
    "merge",
    "publish",
    "forward",
    "wire",
    "remit",
    "grant",
    "reply",
    "email",
    "mail",
    "message",
    "dm",
    "post",
    "schedule",
    "payout",
    "withdraw",
    "permission",
    "permissions",
];

/// Nouns that make a `schedule`/`post`/`message`/`email`/`mail` tool name critical only with a
/// sending sense (`post_message`, `schedule_transaction`), not `post_comment_draft`.
const SENDING_NOUNS: crate::strtab::StrTable = crate::str_table![
    "message",
    "email",
    "mail",
    "transaction",
    "payment",
    "transfer",
    "money",
    "dm",
    "sms",
    "text",
    "webhook",
    "webpage",
    "page",
    "website",
];

/// True for a tool that sends, pays, transfers, invites, shares, merges or publishes, by its
/// name's words (`send_email`, `sendMoney`, `slack/invite_user_to_slack`,
/// `github/merge_pull_request`, `npm_publish`). Reads (`get_shared_files`) are not.
pub fn is_critical_tool(tool: &Tool) -> bool {
    if !matches!(tool.kind, ToolKind::Mcp | ToolKind::Other) {
        return false;
    }
    let name = tool
        .mcp
        .as_ref()
        .map_or(tool.name.as_str(), |m| m.tool.as_str());
    if readwrite::name_is_read(name) {
        return false;
    }
    let w = readwrite::words(name);
    let strong = |v: &str| {
        matches!(
            v,
            "send"
                | "pay"
                | "payment"
                | "transfer"
                | "invite"
                | "share"
                | "merge"
                | "publish"
                | "forward"
                | "wire"
                | "remit"
                | "grant"
                | "reply"
                | "dm"
                | "payout"
                | "withdraw"
                | "permission"
                | "permissions"
                | "upload"
        )
    };
    w.iter().any(|v| strong(v))
        || (w.iter().any(|v| CRITICAL_VERBS.contains(v.as_str()))
            && w.iter().any(|v| SENDING_NOUNS.contains(v.as_str()))
            && w.len() > 1)
}

/// Generic fetch tools of MCP servers (`fetch`, `http_request`, `read_webpage`, `browse`,
/// `get_webpage`): their URL is read like a WebFetch's.
pub fn is_fetch_tool(tool: &Tool) -> bool {
    tool.kind == ToolKind::WebFetch
        || (tool.kind == ToolKind::Mcp
            && readwrite::words(
                tool.mcp
                    .as_ref()
                    .map_or(tool.name.as_str(), |m| m.tool.as_str()),
            )
            .iter()
            .any(|w| readwrite::HTTP_WORDS.contains(w.as_str()) || w == "webpage" || w == "scrape"))
}

/// True for a command whose program sends data by what it is: `git push`, a registry push
/// or login (`docker`, `podman`, `oras`, `helm`, `crane`, `skopeo`), a package publish
/// (`npm`/`pnpm`/`yarn publish`, `cargo publish`, `twine upload`, `gem push`), `ssh` with a
/// remote command, file transfer clients.
fn sends_by_program(c: &crate::shell::SimpleCommand) -> bool {
    let sub = |i: usize| c.args.iter().filter(|w| !w.starts_with('-')).nth(i);
    let first = sub(0).map_or("", String::as_str);
    match c.program.as_str() {
        "git" => c.args.iter().any(|w| w == "push" || w == "send-pack"),
        "docker" | "podman" | "nerdctl" | "buildah" | "oras" | "crane" | "skopeo" | "helm"
        | "regctl" => {
            matches!(
                first,
                "push" | "copy" | "cp" | "login" | "attach" | "mirror"
            ) || c.args.iter().any(|w| w == "push" || w == "--push")
        }
        "npm" | "pnpm" | "yarn" | "bun" => first == "publish",
        "cargo" => first == "publish",
        "twine" => first == "upload",
        "gem" => first == "push",
        "ssh" | "autossh" => c.args.iter().filter(|w| !w.starts_with('-')).count() >= 2,
        "ftp" | "lftp" | "tftp" | "smbclient" | "ncftpput" => true,
        _ => false,
    }
}

/// True when a URL carries data in itself: a query with a value, user information, a fragment
/// with a value, a path segment long enough to hold an encoded value (32 bytes or more), many
/// short segments that do together (`/a1/b2/c3/…`), or host labels that hold data
/// ([`provenance::host_carries_data`]).
pub fn url_carries_data(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (auth_path, query) = match rest.split_once(['?', '#']) {
        Some((a, q)) => (a, q),
        None => (rest, ""),
    };
    let authority = auth_path.split('/').next().unwrap_or("");
    query
        .split('&')
        .any(|kv| kv.split_once('=').is_some_and(|(_, v)| !v.is_empty()) || kv.len() >= 16)
        || authority.contains('@')
        || auth_path.split('/').skip(1).any(|seg| seg.len() >= 32)
        || provenance::path_carries_data(auth_path.split_once('/').map_or("", |(_, p)| p))
        || provenance::host_carries_data(authority.rsplit('@').next().unwrap_or(authority))
}

/// True when the call sends data of its own besides its URL: a shell command that posts or
/// uploads (`curl -d/-F/-T`, `wget --post-data`, `httpie key=value`), a fetch tool with a body.
pub(crate) fn call_carries_data(call: &Call<'_>) -> bool {
    match call.tool.kind {
        ToolKind::WebFetch => false,
        ToolKind::Shell => call.facts.sh.as_ref().is_some_and(|a| {
            a.all_commands().iter().any(|c| {
                let p = c.program.as_str();
                c.heredoc.is_some()
                    || !c.redirect_reads.is_empty()
                    || c.args.iter().any(|w| match p {
                        "curl" => {
                            matches!(
                                w.as_str(),
                                "-d" | "-F" | "-T" | "--form" | "--upload-file" | "--json"
                            ) || w.starts_with("--data")
                                || w.starts_with("-d")
                                || w.starts_with("-F")
                                || w.starts_with("-T")
                        }
                        "wget" => w.starts_with("--post") || w.starts_with("--body"),
                        "http" | "https" | "xh" => w.contains('=') || w.contains(":="),
                        "nc" | "ncat" | "netcat" | "socat" | "scp" | "rsync" | "sftp" => true,
                        _ => false,
                    })
                    || sends_by_program(c)
            }) || a.destinations_carry_data()
        }),
        _ => call.facts.leaves.iter().any(|(k, s)| {
            let k = k.to_ascii_lowercase();
            !s.trim().is_empty()
                && matches!(
                    k.as_str(),
                    "body" | "data" | "json" | "payload" | "content" | "form" | "params" | "text"
                )
        }),
    }
}

/// A `[[trusted_destinations]]` entry covers `x`, or (a host or URL) an `[allow]` hosts entry.
fn trusted(call: &Call<'_>, x: &Val) -> bool {
    let cfg = call.ctx.config;
    let host = match x.kind {
        kind::HOST => Some(x.text.as_str()),
        kind::URL => url_host(&x.text),
        _ => None,
    };
    cfg.trusted_destinations.iter().any(|t| t.covers(x))
        || host.is_some_and(|h| {
            cfg.allow
                .hosts
                .iter()
                .any(|p| super::allow::host_matches(p, h))
        })
}

/// The host of a URL value (already canonical).
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let auth = rest.split(['/', '?', '#']).next()?;
    let hostport = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    if let Some(v6) = hostport.strip_prefix('[') {
        return v6.split(']').next();
    }
    Some(hostport.rsplit_once(':').map_or(hostport, |(h, _)| h))
}

/// A number that is the digits of an IBAN, URL or address among the destinations: that value
/// decides (`GB29NWBK60161331926819` holds the number `2960161331926819`).
fn part_of_another(dests: &[Val], x: &Val) -> bool {
    x.kind == kind::NUMBER
        && dests.iter().any(|w| {
            matches!(w.kind, kind::IBAN | kind::URL | kind::EMAIL) && {
                let digits: String = w.text.chars().filter(char::is_ascii_digit).collect();
                digits.contains(&x.text)
            }
        })
}

/// This machine, or a path inside the workspace: never a way out.
fn local(call: &Call<'_>, x: &Val) -> bool {
    match x.kind {
        kind::HOST => provenance::is_local_host(&x.text),
        kind::URL => url_host(&x.text).is_some_and(provenance::is_local_host),
        kind::PATH => {
            let p = call.ctx.paths.resolve(&x.text);
            call.ctx.paths.in_workspace(&p)
        }
        _ => false,
    }
}

/// The user typed the value: recorded from a prompt, or (for names and numbers the extractor
/// does not record from prose) found as a whole word in a prompt.
pub(crate) fn user_typed(call: &Call<'_>, x: &Val) -> bool {
    if call.view.origin(&x.text).user {
        return true;
    }
    // The same value written in a form the extractor read otherwise (a host glued to the next
    // sentence, `www.example.com.Then`), or a name the extractor does not record from prose
    // (a channel, a user): a whole word of a prompt.
    if matches!(x.kind, kind::PATH | kind::IDENT) {
        return false;
    }
    let needle = crate::policy::fold(&x.text);
    let in_a_prompt = |w: &str| call.view.prompts.iter().any(|p| super::contains_word(p, w));
    if needle.len() >= 2 && in_a_prompt(&needle) {
        return true;
    }
    // A repository the user named by its owner and its name as words of one request ("the
    // acme app repository", "acme's app"): both parts, each distinctive enough to mean it.
    if x.kind == kind::REPO {
        if let Some((owner, name)) = needle.split_once('/') {
            return owner.len() >= 3
                && name.len() >= 3
                && call
                    .view
                    .prompts
                    .iter()
                    .any(|p| super::contains_word(p, owner) && super::contains_word(p, name));
        }
    }
    false
}

/// True when a prompt names `host` on its own: as a whole word not preceded by `@` (a
/// domain or a URL the user typed, not only an address at it).
fn host_named_alone(call: &Call<'_>, host: &str) -> bool {
    let needle = crate::policy::fold(host);
    if needle.is_empty() {
        return false;
    }
    call.view.prompts.iter().any(|p| {
        let mut start = 0;
        while let Some(pos) = p[start..].find(&needle) {
            let a = start + pos;
            let b = a + needle.len();
            let before = p[..a].chars().next_back();
            let after = p[b..].chars().next();
            let word =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
            if before != Some('@') && !word(before) && !word(after) && before != Some('.') {
                return true;
            }
            start = b;
            if start >= p.len() {
                break;
            }
        }
        false
    })
}

fn verdict(tainted: bool) -> Verdict {
    if tainted {
        Verdict::Deny
    } else {
        Verdict::Ask
    }
}

/// Adds the provenance verdicts.
pub fn check(call: &mut Call<'_>) {
    record_remotes(call);
    if injected(call) {
        return;
    }
    let tainted = call.view.session.tainted;
    if let Some(d) = shell_destinations(call) {
        call.verdicts.add(d);
    }
    if let Some(d) = from_outputs_or_nowhere(call, tainted) {
        call.verdicts.add(d);
    }
    if is_critical_tool(&call.tool)
        || invites_by_argument(call)
        || (moves_money(&call.tool) && !call.is_read)
    {
        if let Some(d) = critical(call, tainted) {
            call.verdicts.add(d);
        }
    }
    if let Some(d) = credential_change(call, tainted) {
        call.verdicts.add(d);
    }
}

/// Argument names (lower-case, letters and digits only) that invite people to something the
/// call creates or changes: a meeting's participants, a document's grantees. A call that
/// fills one is an invitation whatever its name (`create_calendar_event`, `add_event`).
const INVITEE_KEYS: &[&str] = &[
    "participants",
    "attendees",
    "invitees",
    "guests",
    "grantees",
    "sharewith",
    "sharedwith",
];

/// True for a call (of an MCP or other named tool, not a read) that fills an invitee argument
/// ([`INVITEE_KEYS`]) with at least one non-empty value.
fn invites_by_argument(call: &Call<'_>) -> bool {
    if !matches!(call.tool.kind, ToolKind::Mcp | ToolKind::Other) || call.is_read {
        return false;
    }
    call.facts.leaves.iter().any(|(k, v)| {
        let k: String = k.chars().filter(char::is_ascii_alphanumeric).collect();
        INVITEE_KEYS.contains(&k.as_str()) && !v.trim().is_empty()
    })
}

/// True when the user keeps lists of trusted destinations: `[[trusted_destinations]]`, or
/// contract registries (`crate::contracts`). Then a critical destination that is on none of
/// them and not in the user's words is denied, not asked: the user has said where their
/// money, mail and invitations go.
fn lists_configured(call: &Call<'_>) -> bool {
    let cfg = call.ctx.config;
    !cfg.trusted_destinations.is_empty() || !cfg.contracts.registries.is_empty()
}

/// Tool-name words that change something (`update_password`, `change_email`, `reset_pin`).
const CHANGE_VERBS: &[&str] = &[
    "update", "change", "set", "reset", "edit", "modify", "replace",
];

/// Argument names (lower-case, letters and digits only) that hold an account's credential or
/// the way it is recovered: whoever sets them owns the account.
fn is_credential_key(k: &str) -> bool {
    let k: String = k
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        k.as_str(),
        "password"
            | "newpassword"
            | "passwd"
            | "passphrase"
            | "newpassphrase"
            | "pin"
            | "newpin"
            | "secret"
            | "recoveryemail"
            | "recoveryphone"
            | "backupemail"
            | "mfaphone"
            | "twofactorphone"
            | "totpsecret"
    ) || (k.ends_with("password") && !k.starts_with("old") && !k.starts_with("current"))
}

/// An account setting that hands the account over: a tool that changes something
/// ([`CHANGE_VERBS`]) setting a credential argument ([`is_credential_key`]: a password, a PIN,
/// a recovery address), or an account's own e-mail address or phone (`update_user_info`,
/// `change_email`: keys `email`, `phone`), to a value the user never typed (it came from a
/// tool result, or nobody showed it) → ask, deny in a tainted session
/// (`provenance.untrusted_credential`). A value the user typed as a whole word of a prompt
/// is theirs.
fn credential_change(call: &Call<'_>, tainted: bool) -> Option<Decision> {
    if !matches!(call.tool.kind, ToolKind::Mcp | ToolKind::Other) || call.is_read {
        return None;
    }
    let tool_name = call
        .tool
        .mcp
        .as_ref()
        .map_or(call.tool.name.as_str(), |m| m.tool.as_str());
    let words = readwrite::words(tool_name);
    if !words.iter().any(|w| CHANGE_VERBS.contains(&w.as_str())) {
        return None;
    }
    // `email`/`phone` are the account's own only for a tool about the account or the user.
    let about_account = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "user" | "account" | "profile" | "email" | "phone" | "recovery"
        )
    });
    let name = &call.name;
    for (k, v) in &call.facts.leaves {
        let kk: String = k
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let account_setting = about_account
            && matches!(
                kk.as_str(),
                "email" | "emailaddress" | "phone" | "phonenumber"
            );
        let v = v.trim();
        if v.is_empty() || !(is_credential_key(k) || account_setting) {
            continue;
        }
        let folded = crate::policy::fold(v);
        if call
            .view
            .prompts
            .iter()
            .any(|p| super::contains_word(p, &folded) || (folded.len() >= 8 && p.contains(&folded)))
        {
            continue;
        }
        let what = if call.view.origin(v).output {
            "a value from a tool result"
        } else {
            "a value the user never typed"
        };
        return Some(
            Decision::new(
                verdict(tainted),
                Reason::UntrustedCredential,
                format!(
                    "{name} sets the account's {k} to {what}: whoever chose it could take the account over"
                ),
            )
            .rule("provenance.untrusted_credential"),
        );
    }
    None
}

/// Injected values: exact values an attacker planted, copied into this call → deny.
fn injected(call: &mut Call<'_>) -> bool {
    let dests = &call.dests;
    let view = call.view;
    let name = &call.name;
    let vals = &call.facts.vals;
    for x in vals {
        let o = view.origin(&x.text);
        if o.user || !(o.injected || o.poisoned_description) {
            continue;
        }
        // A host or domain alone is common to benign and injected text (github.com); it counts
        // only as a destination, and only when no clean output named it too. So do a
        // repository and a name.
        let host_like = matches!(
            x.kind,
            kind::HOST | kind::DOMAIN | kind::REPO | kind::ACCOUNT
        );
        if host_like && (o.output || !dests.contains(x)) {
            continue;
        }
        // The host of an email address is judged by the address itself.
        if host_like
            && vals
                .iter()
                .any(|e| e.kind == kind::EMAIL && e.text.ends_with(&format!("@{}", x.text)))
        {
            continue;
        }
        let src = if o.poisoned_description {
            "a poisoned tool description"
        } else {
            "a tool result flagged as injected"
        };
        call.verdicts.add(
            Decision::new(
                Verdict::Deny,
                Reason::InjectedValue,
                format!(
                    "{name} uses {} '{}', which came from {src} and never from the user",
                    x.kind, x.text
                ),
            )
            .rule("provenance.injected_value")
            .evidence(x.text.clone()),
        );
        return true;
    }
    false
}

/// Destinations that came only from tool outputs (ask), or from nowhere the hook saw (ask,
/// deny in a tainted session).
fn from_outputs_or_nowhere(call: &Call<'_>, tainted: bool) -> Option<Decision> {
    let dests = &call.dests;
    let view = call.view;
    let name = &call.name;
    let get = |t: &str| view.origin(t);
    let fetch_like = is_fetch_tool(&call.tool) || call.tool.kind == ToolKind::Shell;
    let own_data = call_carries_data(call);
    for x in dests {
        if x.kind == kind::DOMAIN
            || part_of_another(dests, x)
            || trusted(call, x)
            || local(call, x)
            || user_typed(call, x)
        {
            continue; // a domain: the host or URL itself decides
        }
        // The host of an address is judged by the address itself.
        if x.kind == kind::HOST
            && dests
                .iter()
                .any(|e| e.kind == kind::EMAIL && e.text.ends_with(&format!("@{}", x.text)))
        {
            continue;
        }
        let o = get(&x.text);
        let seen = o.output || o.injected || o.poisoned_description;
        if seen {
            if fetch_like {
                // Following a link exactly as a result gave it carries no data of the agent's;
                // a new URL on a host from a result can (query strings, paths), and so does a
                // call that posts a body of its own.
                if matches!(x.kind, kind::HOST | kind::DOMAIN) {
                    let mut urls = dests
                        .iter()
                        .filter(|u| {
                            u.kind == kind::URL && url_host(&u.text) == Some(x.text.as_str())
                        })
                        .peekable();
                    let has_url = urls.peek().is_some();
                    if has_url && urls.all(|u| get(&u.text).output) && !own_data {
                        continue;
                    }
                }
                if x.kind == kind::URL && o.output && !o.injected && !own_data {
                    continue;
                }
            }
            return Some(
                Decision::new(
                    Verdict::Ask,
                    Reason::UntrustedDestination,
                    format!(
                        "{name} sends to {} '{}', which came from a tool result, not from the user",
                        x.kind, x.text
                    ),
                )
                .rule("provenance.output_destination")
                .evidence(x.text.clone()),
            );
        }
        // Nobody showed it. Names (channels, users) and paths are not recorded from prose,
        // so their absence says nothing; identifiers are not destinations. A read that is not
        // a fetch names where data comes from, not where it goes.
        if call.is_read && !fetch_like {
            continue;
        }
        // The shell is the developer's own tool: a host or address in a command comes from the
        // project as often as from the model (`scp notes.txt server.example.com:`, `ssh
        // deploy@prod`); in a clean session secrets are what must not leave (the shell's
        // secret-egress rules), so an unnamed destination is held against it once tainted.
        if call.tool.kind == ToolKind::Shell && !tainted {
            continue;
        }
        // Likewise a fetch in a session that read nothing from outside (not exposed, not
        // tainted): a search URL or a long page slug the model composed itself carries the
        // model's words, and no attacker's instruction reached it to steer them.
        if is_fetch_tool(&call.tool)
            && !is_critical_tool(&call.tool)
            && !own_data
            && !view.session.exposed
            && !tainted
        {
            continue;
        }
        if !matches!(
            x.kind,
            kind::EMAIL | kind::URL | kind::HOST | kind::IBAN | kind::NUMBER | kind::REPO
        ) {
            continue;
        }
        match x.kind {
            // The URL's host decides when it was seen or typed (above, as a host); a page the
            // model knows of, read without data of the agent's, is a read.
            kind::URL => {
                let host = url_host(&x.text).unwrap_or("");
                let h = Val {
                    kind: kind::HOST,
                    text: host.to_string(),
                };
                let ho = get(host);
                if ho.user || ho.output || ho.injected || trusted(call, &h) {
                    continue;
                }
                if fetch_like && !url_carries_data(&x.text) && !own_data {
                    continue;
                }
            }
            kind::HOST => {
                // A URL on this host decides.
                if dests
                    .iter()
                    .any(|u| u.kind == kind::URL && url_host(&u.text) == Some(x.text.as_str()))
                {
                    continue;
                }
                if fetch_like && !own_data {
                    continue;
                }
            }
            kind::EMAIL => {
                // An address at a host the user typed or an output showed.
                let host = x.text.rsplit_once('@').map_or("", |(_, h)| h);
                let ho = get(host);
                let d = get(&provenance::domain_of(host));
                if ho.user || d.user {
                    continue;
                }
            }
            _ => {}
        }
        return Some(
            Decision::new(
                verdict(tainted),
                Reason::UnknownDestination,
                format!(
                    "{name} sends to {} '{}', which neither the user nor any tool result named (it may come from a tool description or be made up)",
                    x.kind, x.text
                ),
            )
            .rule("provenance.unknown_destination")
            .evidence(x.text.clone()),
        );
    }
    None
}

/// A critical tool's destination that is not the user's words nor on the trusted list → ask,
/// deny in a tainted session.
fn critical(call: &Call<'_>, tainted: bool) -> Option<Decision> {
    let name = &call.name;
    for x in &call.dests {
        if !matches!(
            x.kind,
            kind::EMAIL
                | kind::URL
                | kind::HOST
                | kind::IBAN
                | kind::NUMBER
                | kind::REPO
                | kind::ACCOUNT
        ) || !call.facts.dest_args.contains(x)
        {
            continue;
        }
        if part_of_another(&call.dests, x)
            || trusted(call, x)
            || local(call, x)
            || user_typed(call, x)
        {
            continue;
        }
        // A name inside the service the user works in (a channel, a member) is no way out of
        // it; in a clean session it does not ask. The ways out (addresses, URLs, hosts,
        // numbers, accounts, repositories) do.
        // A tool that moves money is the exception: its bare ids are accounts and wallets
        // (`bank_account: "ba_…"`, `wallet_address: "0x…"`), ways out of anything.
        if x.kind == kind::ACCOUNT && !tainted && !moves_money(&call.tool) {
            continue;
        }
        // A URL or address on a host the user typed is the user's destination.
        let host = match x.kind {
            kind::URL => url_host(&x.text).unwrap_or(""),
            kind::EMAIL => x.text.rsplit_once('@').map_or("", |(_, h)| h),
            kind::HOST => {
                if call.dests.iter().any(|u| {
                    matches!(u.kind, kind::URL | kind::EMAIL)
                        && call.facts.dest_args.contains(u)
                        && (url_host(&u.text) == Some(x.text.as_str())
                            || u.text.ends_with(&format!("@{}", x.text)))
                }) {
                    continue; // its URL or address decides
                }
                ""
            }
            _ => "",
        };
        // An address is judged by itself when the user named its host only inside other
        // addresses (`jane@gmail.com` typed does not make every gmail.com mailbox theirs).
        if !host.is_empty()
            && call.view.origin(host).user
            && (x.kind != kind::EMAIL || host_named_alone(call, host))
        {
            continue;
        }
        let what = if call.view.origin(&x.text).output {
            "it came from a tool result"
        } else {
            "the user never named it"
        };
        // The user keeps lists of where things go: a destination on none of them is refused.
        let (v, rule, lists) = if lists_configured(call) {
            (
                Verdict::Deny,
                "provenance.untrusted_critical",
                " (it is on none of the lists the user keeps)",
            )
        } else {
            (verdict(tainted), "provenance.critical_destination", "")
        };
        return Some(
            Decision::new(
                v,
                Reason::CriticalDestination,
                format!(
                    "{name} sends to {} '{}': {what}, and this tool's destination must be the user's own or on the trusted_destinations list{lists}",
                    x.kind, x.text
                ),
            )
            .rule(rule)
            .evidence(x.text.clone()),
        );
    }
    None
}

/// Remembers the git remotes a shell line sets (`git remote add NAME URL`, `set-url`,
/// `git config remote.NAME.url`, an `insteadOf` rewrite) and a `.git/config` written by any
/// tool, so that a later `git push NAME` is judged by where it really goes
/// ([`crate::session::FileKind::Remote`]).
fn record_remotes(call: &mut Call<'_>) {
    use crate::session::{Effect, FileKind, SessionFile};
    let d = &call.facts.shell_dests;
    let source = |u: &Option<String>| u.clone().unwrap_or_else(|| "?".into());
    let mut files: Vec<SessionFile> = d
        .remote_sets
        .iter()
        .map(|r| SessionFile {
            path: format!("git-remote:{}", r.name),
            kind: FileKind::Remote,
            source: source(&r.url),
        })
        .collect();
    let file_tool_writes = call.tool.write_paths.iter().any(|p| {
        p.replace('\\', "/")
            .to_ascii_lowercase()
            .ends_with(".git/config")
    });
    if (d.writes_git_config || file_tool_writes) && !files.iter().any(|f| f.path == "git-remote:*")
    {
        files.push(SessionFile {
            path: "git-remote:*".into(),
            kind: FileKind::Remote,
            source: "?".into(),
        });
    }
    if !files.is_empty() {
        call.effects.push(Effect::RecordFiles(files));
    }
}

/// True when a prompt of the user asks for something to be public (the word `public`).
fn user_asked_public(call: &Call<'_>) -> bool {
    call.view
        .prompts
        .iter()
        .any(|p| super::contains_word(p, "public") || super::contains_word(p, "publicly"))
}

/// The shell destinations the analysis cannot resolve or that reach everyone:
/// - computed at run time (`curl "$(printf …)"`, a variable the line assigns from a
///   substitution, `${a}${b}`): ask, deny in an exposed or tainted session; a destination made
///   only of environment variables the line never sets (`curl "$API_URL/v1"`, the user's own
///   settings) is allowed in a clean session, asked in an exposed one, denied when tainted
///   (`provenance.computed_destination`);
/// - not in the line (`curl -K FILE`, `wget -i FILE`, `xargs curl`, a remote this session set
///   whose URL cannot be read): ask, deny in an exposed or tainted session
///   (`provenance.unseen_destination`);
/// - made public (`gh repo edit --visibility public`, `gh gist create --public`): ask unless
///   the user's words ask for it; deny in an exposed or tainted session unless they do, then
///   ask (`provenance.made_public`).
fn shell_destinations(call: &Call<'_>) -> Option<Decision> {
    use crate::shell::Dest;
    if call.tool.kind != ToolKind::Shell {
        return None;
    }
    let s = &call.view.session;
    let (tainted, exposed) = (s.tainted, s.is_exposed());
    let state = if tainted {
        " in a tainted session"
    } else if exposed {
        " in an exposed session"
    } else {
        ""
    };
    let name = &call.name;
    let strict = if exposed { Verdict::Deny } else { Verdict::Ask };
    let mut best: Option<Decision> = None;
    let mut add = |d: Decision| {
        if best.as_ref().is_none_or(|b| d.verdict > b.verdict) {
            best = Some(d);
        }
    };
    for d in &call.facts.shell_dests.dests {
        match d {
            Dest::Computed {
                program,
                word,
                env_only,
            } => {
                let v = match (env_only, tainted, exposed) {
                    (true, true, _) => Verdict::Deny,
                    (true, false, true) => Verdict::Ask,
                    (true, false, false) => continue,
                    (false, _, _) => strict,
                };
                let how = if *env_only {
                    "environment variables the hook cannot see"
                } else {
                    "text computed at run time"
                };
                add(Decision::new(
                    v,
                    Reason::ComputedDestination,
                    format!("{name}: {program} sends to '{word}', a destination built from {how}: where the data goes is unknown{state}"),
                )
                .rule("provenance.computed_destination")
                .evidence(word.clone()));
            }
            Dest::Unseen { program, from } => add(
                Decision::new(
                    strict,
                    Reason::UnseenDestination,
                    format!("{name}: {program} sends to destinations the line does not show ({from}){state}"),
                )
                .rule("provenance.unseen_destination")
                .evidence(from.clone()),
            ),
            Dest::Public(what) => {
                let asked = user_asked_public(call);
                let v = if exposed && !asked {
                    Verdict::Deny
                } else if asked && !exposed {
                    continue;
                } else {
                    Verdict::Ask
                };
                add(Decision::new(
                    v,
                    Reason::MadePublic,
                    format!("{name} makes data public ({what}): everyone becomes its destination, and the user did not ask for it{state}"),
                )
                .rule("provenance.made_public")
                .evidence(what.clone()));
            }
            Dest::Known(_) | Dest::Remote(_) => {}
        }
    }
    for (remote, why) in &call.unresolved_remotes {
        add(Decision::new(
            strict,
            Reason::UnseenDestination,
            format!("{name} sends to git remote '{remote}', {why}{state}"),
        )
        .rule("provenance.unseen_destination")
        .evidence(remote.clone()));
    }
    best
}
