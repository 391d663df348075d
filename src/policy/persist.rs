//! Persistence targets: files and commands that make something run later on its own, whatever
//! tool writes them (Bash, Write, Edit, MultiEdit, apply_patch, NotebookEdit, MCP file tools'
//! paths as the harness gives them). A write to one is asked about in a clean session and denied
//! in a tainted one (`persist.write`); agent and guard configuration stay denied always by the
//! protected-path rule (`crate::paths`), which runs first.
//!
//! The list, by kind, with where each kind comes from:
//! - shell start-up files (`~/.bashrc`, `~/.profile`, `~/.zshrc`, fish, `~/.inputrc`...):
//!   MITRE ATT&CK T1546.004 (Unix shell configuration modification);
//! - SSH access (`~/.ssh/authorized_keys`, `~/.ssh/config` with `ProxyCommand`/`LocalCommand`,
//!   `~/.ssh/rc`, `~/.ssh/environment`): T1098.004 (SSH authorized keys), and ssh_config(5)
//!   for the commands a client config runs;
//! - git configuration (`~/.gitconfig`, `~/.config/git/**`, `/etc/gitconfig`): git-config(1)
//!   keys that run programs (`core.pager`, `core.fsmonitor`, `alias.*`, filters), T1546;
//! - cron and at (`/var/spool/cron`, `/etc/cron*`, `crontab FILE|-|-e`, `at`): T1053.003, T1053.002;
//! - systemd units (`~/.config/systemd/user/**`, `/etc/systemd/system/**`, `systemctl --user
//!   enable|link|edit`): T1543.002;
//! - launchd (`~/Library/LaunchAgents/**`, `/Library/LaunchAgents|LaunchDaemons/**`,
//!   `launchctl load|bootstrap`): T1543.001, T1543.004;
//! - XDG autostart (`~/.config/autostart/**`): T1547.013;
//! - programs found first on `PATH` (`~/.local/bin/**`, `~/bin/**`): T1574.007 (path
//!   interception by PATH environment variable);
//! - editor tasks and run configurations (`.vscode/tasks.json` with `runOn: folderOpen`,
//!   `.vscode/launch.json`, `.idea/runConfigurations/**`, `.idea/workspace.xml`): VS Code's task
//!   auto-run, abused as in the "Contagious Interview" campaign (T1204.002);
//! - agent rules, hooks, skills and commands (`.cursor/rules/**`, `.cursorrules`,
//!   `.windsurfrules`, `.clinerules`, `.github/copilot-instructions.md`,
//!   `.github/instructions/**`, `.claude/hooks|skills|commands|agents/**`): the "rules file
//!   backdoor" (Pillar Security, 2025) and Claude Code's hooks and skills documentation: the
//!   next agent session follows or runs them;
//! - package lifecycle scripts (`package.json` `scripts.preinstall|install|postinstall|
//!   prepare|prepublish|...`, `.npmrc`/`.yarnrc` `script-shell`/`node-options`/`yarnPath`,
//!   `npm pkg set scripts.postinstall=…`): npm-scripts(7), T1195.002;
//! - shell aliases and login/logout files (`~/.bash_aliases`, `~/.bash_login`,
//!   `~/.bash_logout`, `~/.zlogin`, `~/.zlogout`) and direnv's `.envrc` (run on `cd` into
//!   the folder): T1546.004;
//! - language start-up hooks (`site-packages/*.pth` and `usercustomize.py`/`sitecustomize.py`
//!   run by every Python start, Python's `site` documentation; `~/.pythonrc(.py)`, the usual
//!   `PYTHONSTARTUP` file; Ruby's `~/.irbrc`, `~/.pryrc`): T1546.018 (Python startup hooks);
//! - build and tool configuration that names programs to run (`~/.cargo/config.toml` and a
//!   project's `.cargo/config.toml`: `build.rustc-wrapper`, `target.*.runner`, The Cargo Book
//!   "Configuration"; `~/.cargo/bin/**`, first on PATH for Rust users; `~/.gradle/init.d/**`
//!   and `~/.gradle/init.gradle`, Gradle init scripts run by every build; `~/.aws/config`
//!   `credential_process`, AWS CLI "Sourcing credentials with an external process";
//!   `~/.wgetrc`, `~/.curlrc`, which change what every download does): T1546;
//! - editors and terminal tools that run their configuration (`~/.vimrc`, `~/.exrc`,
//!   `~/.vim/**`, `~/.config/nvim/**`, `~/.emacs`, `~/.emacs.d/**`, `~/.config/emacs/**`,
//!   `~/.tmux.conf`, `~/.config/tmux/**`, `~/.screenrc`, `~/.gdbinit`, `~/.config/gdb/**`):
//!   T1546 (event-triggered execution), each tool's documented start-up file;
//! - desktop entries (`~/.local/share/applications/*.desktop`): they name the program run when
//!   a file type or URL is opened, T1546.001 (change default file association);
//! - `git config` of a key git runs or that redirects it (`url.*.insteadOf`,
//!   `url.*.pushInsteadOf`, `core.hooksPath`, `core.pager`, `core.editor`, `core.sshCommand`,
//!   `credential.helper`, `filter.*`, `diff.*.textconv`, `gpg.program`, `!` aliases), in any
//!   scope (git-config(1)); the command a value runs is analysed too, so a dangerous one meets
//!   its own rule;
//! - `systemd-run` timers (`--on-calendar`, `--on-active`, `--on-boot`…) and `loginctl
//!   enable-linger` (user services kept running after logout): T1053.006;
//! - package-manager and tool settings ([`settings`]: `pip config set`, `npm|pnpm|yarn config
//!   set`, `gem sources --add`, `conda config --add`, `poetry source add`, `bundle config`, `go
//!   env -w`, and `.npmrc`, `pip.conf`, `.pypirc`, `.condarc`... written by any tool): a key
//!   that names a program run later is tool configuration, one that chooses where packages
//!   come from or whether they are verified is `persist.package_source` (T1195.002), both
//!   asked in a clean session and denied in an exposed or tainted one; a key the table does not
//!   know is `persist.tool_setting`, asked about in an exposed or tainted session only;
//! - everyday files that still steer later runs, asked about only in a tainted session (so the
//!   clean-session corpus stays quiet): agent instructions (`AGENTS.md`, `CLAUDE.md`,
//!   `GEMINI.md`: edited by people and agents every day, but an injected session writing them
//!   plants instructions for every later session) and `.pre-commit-config.yaml` (runs on each
//!   commit, edited as part of ordinary tooling work).

use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::paths::PathContext;
use crate::shell::{Analysis, SimpleCommand, WriteKind};
use std::path::Path;

pub mod settings;

/// A kind of persistence target (see the module documentation for the source of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersistKind {
    /// Shell start-up files (T1546.004).
    ShellStartup,
    /// SSH authorized keys and client configuration (T1098.004).
    SshAccess,
    /// Git configuration that names programs git runs.
    GitConfig,
    /// cron and at jobs (T1053.003, T1053.002).
    Cron,
    /// systemd units (T1543.002).
    Systemd,
    /// launchd agents and daemons (T1543.001, T1543.004).
    Launchd,
    /// XDG autostart entries (T1547.013).
    Autostart,
    /// Programs found first on `PATH` (T1574.007).
    UserBin,
    /// Editor tasks and run configurations.
    EditorTasks,
    /// Agent rules, hooks, skills, commands and sub-agents.
    AgentRules,
    /// Package lifecycle scripts.
    PackageScripts,
    /// Language start-up hooks (Python `.pth`, `sitecustomize`, `PYTHONSTARTUP`, `.irbrc`).
    LanguageStartup,
    /// Build and tool configuration that names programs to run (cargo, gradle, AWS CLI).
    ToolConfig,
    /// Editors and terminal tools that run their configuration (vim, emacs, tmux, gdb).
    EditorConfig,
    /// Desktop entries naming the program a file type or URL opens with.
    DesktopEntry,
    /// Agent instruction files (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`): tainted sessions only.
    AgentInstructions,
    /// `.pre-commit-config.yaml`: tainted sessions only.
    PreCommit,
    /// Package-manager settings that choose where packages come from or whether they are
    /// verified (`pip config set global.index-url`, `npm config set registry`, `conda config
    /// --add channels`, `gem sources --add`, `poetry source add`, `go env -w GOPROXY`, the
    /// same keys written into `.npmrc`, `pip.conf`, `.condarc`...): T1195.002.
    PackageSource,
    /// A package-manager or tool setting IntentShield does not know (an unknown key of a
    /// `config set`, a configuration file whose text cannot be read): exposed sessions only.
    ToolSetting,
}

impl PersistKind {
    /// The rule id (`persist.shell_startup`, ...).
    pub fn rule(self) -> &'static str {
        match self {
            PersistKind::ShellStartup => "persist.shell_startup",
            PersistKind::SshAccess => "persist.ssh_access",
            PersistKind::GitConfig => "persist.git_config",
            PersistKind::Cron => "persist.cron",
            PersistKind::Systemd => "persist.systemd",
            PersistKind::Launchd => "persist.launchd",
            PersistKind::Autostart => "persist.autostart",
            PersistKind::UserBin => "persist.user_bin",
            PersistKind::EditorTasks => "persist.editor_tasks",
            PersistKind::AgentRules => "persist.agent_rules",
            PersistKind::PackageScripts => "persist.package_scripts",
            PersistKind::LanguageStartup => "persist.language_startup",
            PersistKind::ToolConfig => "persist.tool_config",
            PersistKind::EditorConfig => "persist.editor_config",
            PersistKind::DesktopEntry => "persist.desktop_entry",
            PersistKind::AgentInstructions => "persist.agent_instructions",
            PersistKind::PreCommit => "persist.pre_commit",
            PersistKind::PackageSource => "persist.package_source",
            PersistKind::ToolSetting => "persist.tool_setting",
        }
    }

    /// What it is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            PersistKind::ShellStartup => "a shell start-up file",
            PersistKind::SshAccess => "SSH access or client configuration",
            PersistKind::GitConfig => "git configuration (it names programs git runs)",
            PersistKind::Cron => "a scheduled job (cron/at)",
            PersistKind::Systemd => "a systemd unit",
            PersistKind::Launchd => "a launchd agent",
            PersistKind::Autostart => "a desktop autostart entry",
            PersistKind::UserBin => "a folder of programs found first on PATH",
            PersistKind::EditorTasks => "an editor task or run configuration",
            PersistKind::AgentRules => "an agent rule, hook, skill or command",
            PersistKind::PackageScripts => "a package lifecycle script",
            PersistKind::LanguageStartup => "a language start-up hook",
            PersistKind::ToolConfig => "build or tool configuration that names programs to run",
            PersistKind::EditorConfig => "an editor or terminal tool's start-up configuration",
            PersistKind::DesktopEntry => "a desktop entry (the program a file or URL opens with)",
            PersistKind::AgentInstructions => "agent instructions",
            PersistKind::PreCommit => "pre-commit hooks",
            PersistKind::PackageSource => {
                "package-manager configuration that chooses a package source or its verification"
            }
            PersistKind::ToolSetting => {
                "a package-manager or tool setting IntentShield does not know"
            }
        }
    }

    /// True for the everyday kinds asked about only in a tainted session.
    pub fn everyday(self) -> bool {
        matches!(
            self,
            PersistKind::AgentInstructions | PersistKind::PreCommit
        )
    }

    /// True for the kinds asked about only once the session is exposed or tainted (the
    /// exposure check asks; a clean session says nothing).
    pub fn exposed_only(self) -> bool {
        self == PersistKind::ToolSetting
    }
}

/// True when `d` is a persistence decision of a kind an exposed session asks about
/// ([`PersistKind::exposed_only`]).
pub fn is_exposed_ask(d: &Decision) -> bool {
    d.rules.iter().any(|r| r == PersistKind::ToolSetting.rule())
}

/// Targets relative to the home folder: `(path, kind)`; a path ending in `/` is a folder
/// whose every file counts.
const HOME_TARGETS: &[(&str, PersistKind)] = &[
    (".bashrc", PersistKind::ShellStartup),
    (".bash_profile", PersistKind::ShellStartup),
    (".bash_login", PersistKind::ShellStartup),
    (".bash_logout", PersistKind::ShellStartup),
    (".profile", PersistKind::ShellStartup),
    (".zshrc", PersistKind::ShellStartup),
    (".zshenv", PersistKind::ShellStartup),
    (".zprofile", PersistKind::ShellStartup),
    (".zlogin", PersistKind::ShellStartup),
    (".zlogout", PersistKind::ShellStartup),
    (".kshrc", PersistKind::ShellStartup),
    (".cshrc", PersistKind::ShellStartup),
    (".tcshrc", PersistKind::ShellStartup),
    (".inputrc", PersistKind::ShellStartup),
    (".pam_environment", PersistKind::ShellStartup),
    (".config/fish/", PersistKind::ShellStartup),
    (".config/environment.d/", PersistKind::ShellStartup),
    (".oh-my-zsh/custom/", PersistKind::ShellStartup),
    (".ssh/authorized_keys", PersistKind::SshAccess),
    (".ssh/authorized_keys2", PersistKind::SshAccess),
    (".ssh/config", PersistKind::SshAccess),
    (".ssh/config.d/", PersistKind::SshAccess),
    (".ssh/rc", PersistKind::SshAccess),
    (".ssh/environment", PersistKind::SshAccess),
    (".gitconfig", PersistKind::GitConfig),
    (".config/git/", PersistKind::GitConfig),
    (".config/systemd/user/", PersistKind::Systemd),
    (".local/share/systemd/user/", PersistKind::Systemd),
    ("Library/LaunchAgents/", PersistKind::Launchd),
    (".config/autostart/", PersistKind::Autostart),
    (".local/bin/", PersistKind::UserBin),
    ("bin/", PersistKind::UserBin),
    (".cargo/bin/", PersistKind::UserBin),
    (".bash_aliases", PersistKind::ShellStartup),
    (".zsh_aliases", PersistKind::ShellStartup),
    (".pythonrc", PersistKind::LanguageStartup),
    (".pythonrc.py", PersistKind::LanguageStartup),
    (".pythonstartup", PersistKind::LanguageStartup),
    (".irbrc", PersistKind::LanguageStartup),
    (".pryrc", PersistKind::LanguageStartup),
    (".cargo/config.toml", PersistKind::ToolConfig),
    (".cargo/config", PersistKind::ToolConfig),
    (".gradle/init.d/", PersistKind::ToolConfig),
    (".gradle/init.gradle", PersistKind::ToolConfig),
    (".gradle/init.gradle.kts", PersistKind::ToolConfig),
    (".aws/config", PersistKind::ToolConfig),
    (".wgetrc", PersistKind::ToolConfig),
    (".curlrc", PersistKind::ToolConfig),
    (".config/curlrc", PersistKind::ToolConfig),
    (".vimrc", PersistKind::EditorConfig),
    (".gvimrc", PersistKind::EditorConfig),
    (".exrc", PersistKind::EditorConfig),
    (".vim/", PersistKind::EditorConfig),
    (".config/nvim/", PersistKind::EditorConfig),
    (".emacs", PersistKind::EditorConfig),
    (".emacs.el", PersistKind::EditorConfig),
    (".emacs.d/", PersistKind::EditorConfig),
    (".config/emacs/", PersistKind::EditorConfig),
    (".tmux.conf", PersistKind::EditorConfig),
    (".config/tmux/", PersistKind::EditorConfig),
    (".screenrc", PersistKind::EditorConfig),
    (".gdbinit", PersistKind::EditorConfig),
    (".config/gdb/", PersistKind::EditorConfig),
    (".local/share/applications/", PersistKind::DesktopEntry),
];

/// System-wide targets (absolute).
const SYSTEM_TARGETS: &[(&str, PersistKind)] = &[
    ("/etc/profile", PersistKind::ShellStartup),
    ("/etc/profile.d/", PersistKind::ShellStartup),
    ("/etc/bash.bashrc", PersistKind::ShellStartup),
    ("/etc/zsh/", PersistKind::ShellStartup),
    ("/etc/environment", PersistKind::ShellStartup),
    ("/etc/gitconfig", PersistKind::GitConfig),
    ("/etc/crontab", PersistKind::Cron),
    ("/etc/cron.d/", PersistKind::Cron),
    ("/etc/cron.hourly/", PersistKind::Cron),
    ("/etc/cron.daily/", PersistKind::Cron),
    ("/etc/cron.weekly/", PersistKind::Cron),
    ("/etc/cron.monthly/", PersistKind::Cron),
    ("/var/spool/cron/", PersistKind::Cron),
    ("/etc/systemd/system/", PersistKind::Systemd),
    ("/etc/systemd/user/", PersistKind::Systemd),
    ("/library/launchagents/", PersistKind::Launchd),
    ("/library/launchdaemons/", PersistKind::Launchd),
    ("/etc/xdg/autostart/", PersistKind::Autostart),
    ("/usr/local/bin/", PersistKind::UserBin),
];

/// Targets inside any project, as path segments: `(segment, kind)`; a segment ending in `/`
/// is a folder whose every file counts, others are a file by its path's tail.
const PROJECT_TARGETS: &[(&str, PersistKind)] = &[
    (".vscode/tasks.json", PersistKind::EditorTasks),
    (".vscode/launch.json", PersistKind::EditorTasks),
    (".vscode/settings.json", PersistKind::EditorTasks),
    (".idea/runConfigurations/", PersistKind::EditorTasks),
    (".idea/workspace.xml", PersistKind::EditorTasks),
    (".cursor/rules/", PersistKind::AgentRules),
    (".cursorrules", PersistKind::AgentRules),
    (".windsurfrules", PersistKind::AgentRules),
    (".clinerules", PersistKind::AgentRules),
    (".github/copilot-instructions.md", PersistKind::AgentRules),
    (".github/instructions/", PersistKind::AgentRules),
    (".claude/hooks/", PersistKind::AgentRules),
    (".claude/skills/", PersistKind::AgentRules),
    (".claude/commands/", PersistKind::AgentRules),
    (".claude/agents/", PersistKind::AgentRules),
    (".gemini/commands/", PersistKind::AgentRules),
    (".codex/prompts/", PersistKind::AgentRules),
    ("AGENTS.md", PersistKind::AgentInstructions),
    ("CLAUDE.md", PersistKind::AgentInstructions),
    ("CLAUDE.local.md", PersistKind::AgentInstructions),
    ("GEMINI.md", PersistKind::AgentInstructions),
    (".pre-commit-config.yaml", PersistKind::PreCommit),
    (".cargo/config.toml", PersistKind::ToolConfig),
    (".cargo/config", PersistKind::ToolConfig),
    (".envrc", PersistKind::ShellStartup),
    (".git/config", PersistKind::GitConfig),
];

/// True for a Python start-up hook anywhere (a virtual environment's too): a `.pth` file in a
/// `site-packages`/`dist-packages` folder (its `import` lines run at every start), or a
/// `sitecustomize.py`/`usercustomize.py` (Python's `site` module documentation). A `.pth` file
/// in a folder computed at run time (`$(python3 -c 'import site;…')/x.pth`) may be one.
fn python_startup(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dir = &path[..path.len() - name.len()];
    let in_site = path.contains("/site-packages/")
        || path.contains("/dist-packages/")
        || dir.contains(['$', '`', '…']);
    (in_site && name.ends_with(".pth")) || matches!(name, "sitecustomize.py" | "usercustomize.py")
}

/// The persistence kind of a write to `p` (resolved against the call's folder and home), if it
/// is one. `package.json` and `.npmrc` count only by what is written ([`text_persists`]).
pub fn target_kind(paths: &PathContext, p: &str) -> Option<PersistKind> {
    let r = paths.resolve(p);
    let s = r.to_string_lossy();
    let lower = s.to_ascii_lowercase();
    for (t, k) in SYSTEM_TARGETS {
        if under(&lower, t) {
            return Some(*k);
        }
    }
    if let Some(home) = paths.home.as_deref() {
        if let Ok(rel) = r.strip_prefix(Path::new(home)) {
            let rel = rel.to_string_lossy();
            for (t, k) in HOME_TARGETS {
                if under(&rel, t) {
                    return Some(*k);
                }
            }
        }
    }
    if python_startup(&s) {
        return Some(PersistKind::LanguageStartup);
    }
    for (t, k) in PROJECT_TARGETS {
        let hit = if let Some(dir) = t.strip_suffix('/') {
            s.contains(&format!("/{dir}/"))
        } else {
            s.ends_with(&format!("/{t}")) || s == *t
        };
        if hit {
            return Some(*k);
        }
    }
    None
}

/// True when `path` is `target` (a file) or inside it (a folder written with a final `/`).
fn under(path: &str, target: &str) -> bool {
    match target.strip_suffix('/') {
        Some(dir) => path == dir || path.starts_with(target),
        None => path == target,
    }
}

/// The persistence kind of a folder written into whole (`tar -x -C ~`, `cp -r payload/. ~/`,
/// `unzip -d ~/.config`): one that holds persistence targets (the home folder, `~/.config`,
/// `~/.ssh`, `~/Library`, a project's `.vscode`, `.cursor`, `.claude`, `.github`, `.idea`).
pub fn folder_holds(paths: &PathContext, p: &str) -> Option<PersistKind> {
    let r = paths.resolve(p);
    if let Some(home) = paths.home.as_deref() {
        if let Ok(rel) = r.strip_prefix(Path::new(home)) {
            let rel = rel.to_string_lossy();
            if rel.is_empty() {
                return Some(PersistKind::ShellStartup);
            }
            let prefix = format!("{rel}/");
            if let Some((_, k)) = HOME_TARGETS.iter().find(|(t, _)| t.starts_with(&prefix)) {
                return Some(*k);
            }
        }
    }
    let name = r.file_name()?.to_string_lossy().into_owned();
    let prefix = format!("{name}/");
    PROJECT_TARGETS
        .iter()
        .find(|(t, _)| t.starts_with(&prefix))
        .map(|(_, k)| *k)
}

/// npm lifecycle scripts that run on install, publish or pack (npm-scripts(7)).
const LIFECYCLE: crate::strtab::StrTable = crate::str_table![
    "preinstall",
    "install",
    "postinstall",
    "prepare",
    "prepublish",
    "prepublishOnly",
    "prepack",
    "postpack",
    "preuninstall",
    "uninstall",
    "postuninstall",
    "dependencies",
];

/// True when text written to `file` (its name decides) makes a package manager run code: a
/// lifecycle script key in `package.json` (`"postinstall": …`), or `script-shell`,
/// `node-options`, `yarnPath`, `onlyBuiltDependencies`-style keys in `.npmrc`/`.yarnrc(.yml)`.
/// `before` is the text replaced (an Edit's `old_string`): a key already there with the same
/// line is not a change.
pub fn text_persists(file: &str, text: &str, before: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    let changed = |line: &str| !before.lines().any(|b| b.trim() == line.trim());
    match name {
        "package.json" => text.lines().take(10_000).any(|line| {
            let t = line.trim_start();
            LIFECYCLE.iter().any(|k| {
                t.starts_with(&format!("\"{k}\"")) && t[k.len() + 2..].trim_start().starts_with(':')
            }) && changed(line)
        }),
        ".npmrc" | ".yarnrc" | ".yarnrc.yml" => text.lines().take(10_000).any(|line| {
            let t = line.trim_start().to_ascii_lowercase();
            [
                "script-shell",
                "node-options",
                "yarnpath",
                "shell",
                "init-module",
            ]
            .iter()
            .any(|k| t.starts_with(k))
                && changed(line)
        }),
        _ => false,
    }
}

/// A shell command that installs a scheduled job or a service, or sets a lifecycle script:
/// `crontab FILE|-|-e` (not `-l`/`-r`), `at`/`batch` (not `-l`/`-r`/`-c`), `systemctl --user
/// enable|link|edit|preset`, `launchctl load|bootstrap|submit`, `npm pkg set
/// scripts.postinstall=…`.
pub fn command_persists(c: &SimpleCommand) -> Option<PersistKind> {
    // `systemd-run [--user] --on-calendar=… CMD` is a wrapper: the timer is in its options.
    let timer = c
        .wrapper_words
        .iter()
        .skip_while(|w| crate::shell::basename_of(w) != "systemd-run")
        .take_while(|w| w.starts_with('-') || crate::shell::basename_of(w) == "systemd-run")
        .any(|w| w.starts_with("--on-"));
    if timer {
        return Some(PersistKind::Systemd);
    }
    let a: Vec<&str> = c.args.iter().map(String::as_str).collect();
    match c.program.as_str() {
        "crontab" => {
            let reads = a
                .iter()
                .any(|w| matches!(*w, "-l" | "-r" | "-T" | "--list"));
            (!reads).then_some(PersistKind::Cron)
        }
        "at" | "batch" => {
            let reads = a.iter().any(|w| matches!(*w, "-l" | "-r" | "-c" | "-d"));
            (!reads).then_some(PersistKind::Cron)
        }
        "systemctl" => {
            let user = a.contains(&"--user");
            let installs = a
                .iter()
                .any(|w| matches!(*w, "enable" | "link" | "edit" | "preset" | "reenable"));
            (user && installs).then_some(PersistKind::Systemd)
        }
        // A timer (`--on-calendar`, `--on-active`, `--on-boot`, `--on-startup`,
        // `--on-unit-active`, `--on-unit-inactive`) runs the command later, again.
        "systemd-run" => a
            .iter()
            .any(|w| w.starts_with("--on-"))
            .then_some(PersistKind::Systemd),
        "loginctl" => a
            .first()
            .is_some_and(|s| *s == "enable-linger")
            .then_some(PersistKind::Systemd),
        "launchctl" => a
            .first()
            .is_some_and(|s| matches!(*s, "load" | "bootstrap" | "submit" | "enable"))
            .then_some(PersistKind::Launchd),
        // `git config KEY VALUE` of a key git runs or that redirects it, in any scope.
        "git" => c.git_config_write().map(|_| PersistKind::GitConfig),
        "npm" | "pnpm" => {
            let sets = a.windows(2).any(|w| w[0] == "pkg" && w[1] == "set");
            let lifecycle = a.iter().any(|w| {
                w.strip_prefix("scripts.")
                    .and_then(|r| r.split('=').next())
                    .is_some_and(|k| LIFECYCLE.contains(k))
            });
            (sets && lifecycle).then_some(PersistKind::PackageScripts)
        }
        _ => None,
    }
}

/// Programs whose write into a folder lands new files there (copies and extractions).
const LANDS_INTO: crate::strtab::StrTable = crate::str_table![
    "cp", "rsync", "tar", "bsdtar", "unzip", "7z", "7za", "ditto", "mv", "install", "cpio", "scp",
    "gunzip", "unrar", "ln",
];

/// Where a write lands, with the text it writes when the tool says (Write, Edit, MultiEdit).
struct Written {
    path: String,
    into: bool,
    sources: Vec<String>,
    text: Option<(String, String)>,
}

/// The text a file tool writes and the text it replaces: Write `content`, Edit `new_string`
/// and `old_string`, MultiEdit `edits[].new_string`/`old_string`, a patch's added lines.
fn tool_text(tool: &Tool) -> (String, String) {
    let i = &tool.input;
    let s = |k: &str| i.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let mut new = String::new();
    let mut old = String::new();
    for k in [
        "content",
        "new_string",
        "new_str",
        "file_text",
        "new_source",
    ] {
        new.push_str(&s(k));
    }
    old.push_str(&s("old_string"));
    if let Some(edits) = i.get("edits").and_then(|v| v.as_array()) {
        for e in edits.iter().take(1000) {
            new.push_str(e.get("new_string").and_then(|v| v.as_str()).unwrap_or(""));
            new.push('\n');
            old.push_str(e.get("old_string").and_then(|v| v.as_str()).unwrap_or(""));
            old.push('\n');
        }
    }
    if let Some(p) = &tool.patch {
        for line in p.lines().take(100_000) {
            if let Some(added) = line.strip_prefix('+').filter(|l| !l.starts_with("++")) {
                new.push_str(added);
                new.push('\n');
            } else if let Some(removed) = line.strip_prefix('-').filter(|l| !l.starts_with("--")) {
                old.push_str(removed);
                old.push('\n');
            }
        }
    }
    (new, old)
}

/// The persistence decision for one call, if it writes a persistence target: ask in a clean
/// session, deny in a tainted one; the everyday kinds ([`PersistKind::everyday`]) only in a
/// tainted session, as an ask.
pub fn check(
    tool: &Tool,
    sh: Option<&Analysis>,
    paths: &PathContext,
    tainted: bool,
) -> Option<Decision> {
    let name = tool.display_name();
    let mut writes: Vec<Written> = Vec::new();
    if matches!(
        tool.kind,
        ToolKind::FileWrite | ToolKind::Other | ToolKind::Mcp
    ) || tool.patch.is_some()
    {
        let text = tool_text(tool);
        for p in &tool.write_paths {
            writes.push(Written {
                path: p.clone(),
                into: false,
                sources: Vec::new(),
                text: Some(text.clone()),
            });
        }
    }
    let mut found: Option<(PersistKind, String)> = None;
    if let Some(a) = sh {
        for t in a.write_targets() {
            // (`find DIR -name X -delete` removes entries by name: not a write into DIR.)
            if !t.located || !t.names.is_empty() {
                continue;
            }
            writes.push(Written {
                path: t.path,
                into: t.kind == WriteKind::Into && LANDS_INTO.contains(t.by.as_str()),
                sources: t.sources,
                text: None,
            });
        }
        for c in a.all_commands() {
            if let Some(k) = command_persists(c) {
                let what = c.git_config_write().unwrap_or_else(|| c.program.clone());
                found = Some((k, what));
                break;
            }
        }
        if found.is_none() {
            // A tool setting: the strongest of the line's commands.
            found = a
                .all_commands()
                .into_iter()
                .filter_map(settings::command)
                .max_by_key(|(e, _)| *e)
                .map(|(e, what)| (setting_kind(e), what));
        }
    }
    // A configuration file of the settings table: by the keys it writes. An unknown setting
    // may still be beaten by a stronger target later in the list.
    let line = tool
        .input
        .get("command")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    if found.is_none() {
        for w in &writes {
            let file = paths.resolve(&w.path).to_string_lossy().into_owned();
            let text = w.text.as_ref().map(|(n, o)| (n.as_str(), o.as_str()));
            let e = settings::file(
                &file,
                text.map(|(n, _)| n),
                text.map_or("", |(_, o)| o),
                line,
            );
            if let Some(e) = e {
                found = Some((setting_kind(e), w.path.clone()));
                if e > settings::Effect::Unknown {
                    break;
                }
            }
        }
    }
    if found
        .as_ref()
        .is_none_or(|(k, _)| *k == PersistKind::ToolSetting)
    {
        for w in &writes {
            let file = paths.resolve(&w.path).to_string_lossy().into_owned();
            if let Some((new, old)) = &w.text {
                if text_persists(&file, new, old) {
                    found = Some((PersistKind::PackageScripts, w.path.clone()));
                    break;
                }
            }
            if let Some(k) = target_kind(paths, &w.path) {
                found = Some((k, w.path.clone()));
                break;
            }
            if w.into {
                if let Some(k) = landed_kind(paths, &w.path, &w.sources) {
                    found = Some((k, w.path.clone()));
                    break;
                }
            }
        }
    }
    let (kind, what) = found?;
    let verdict = match (kind.everyday() || kind.exposed_only(), tainted) {
        (true, false) => return None,
        (true, true) | (false, false) => Verdict::Ask,
        (false, true) => Verdict::Deny,
    };
    let when = if tainted { " in a tainted session" } else { "" };
    Some(
        Decision::new(
            verdict,
            Reason::PersistWrite,
            format!(
                "{name} writes {what}, {}: {}{when}",
                kind.describe(),
                match kind {
                    PersistKind::PackageSource => "later installs would fetch from it",
                    PersistKind::ToolSetting => "it steers later commands",
                    _ => "it would run later on its own",
                }
            ),
        )
        .rule(kind.rule())
        .evidence(what),
    )
}

/// The persistence kind of a tool setting by what it does.
fn setting_kind(e: settings::Effect) -> PersistKind {
    match e {
        settings::Effect::Runs => PersistKind::ToolConfig,
        settings::Effect::Source => PersistKind::PackageSource,
        settings::Effect::Unknown => PersistKind::ToolSetting,
    }
}

/// The persistence kind a copy or extraction into the folder `dest` reaches: by the names of
/// the entries copied (`cp -r dist/app ~/` cannot; `cp -r payload/. ~/` may), or by the folder
/// itself when what lands there cannot be known (an archive extracted, a folder's contents that
/// cannot be listed now). Reads the listings it needs.
fn landed_kind(paths: &PathContext, dest: &str, sources: &[String]) -> Option<PersistKind> {
    let holds = folder_holds(paths, dest)?;
    if sources.is_empty() {
        return Some(holds);
    }
    let dest = dest.trim_end_matches('/');
    for s in sources.iter().take(64) {
        let s = s.trim();
        if s.contains(['$', '`']) {
            return Some(holds);
        }
        let contents = s == "." || s.ends_with("/.") || s.ends_with('/');
        let base = s.rsplit('/').next().unwrap_or(s);
        let names: Vec<String> = if base.contains(['*', '?', '[']) {
            // A glob copies what it matches now (a `*` does not match a leading dot); a folder
            // that cannot be listed gives nothing to copy.
            let dir = paths.resolve(s.rsplit_once('/').map_or(".", |(d, _)| d));
            std::fs::read_dir(dir)
                .map(|entries| {
                    entries
                        .flatten()
                        .take(4096)
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| {
                            (!n.starts_with('.') || base.starts_with('.'))
                                && crate::shell::glob_match(base, n)
                        })
                        .collect()
                })
                .unwrap_or_default()
        } else if contents {
            let dir = paths.resolve(s.trim_end_matches('.'));
            match std::fs::read_dir(dir) {
                Ok(entries) => entries
                    .flatten()
                    .take(4096)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => return Some(holds),
            }
        } else {
            vec![s.rsplit('/').next().unwrap_or(s).to_string()]
        };
        for n in names {
            let landed = format!("{dest}/{n}");
            if let Some(k) = target_kind(paths, &landed).or_else(|| folder_holds(paths, &landed)) {
                return Some(k);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
