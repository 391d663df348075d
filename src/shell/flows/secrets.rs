//! Secret sources by kind ([`SecretKind`], [`secret_kind`]), and secret data followed through a
//! line ([`Analysis::secret_flows`]): which commands read a secret's content, which files they
//! write it into, whether a network sink anywhere in the line receives it (through a pipe, a
//! substitution, a variable, a loop or a file written earlier in the line), which files a
//! download lands in, and which files the line runs.
//!
//! Where the kinds come from: the credential stores MITRE ATT&CK names under T1552.001
//! (credentials in files), T1552.004 (private keys), T1552.007 (container API credentials) and
//! T1555 (password stores, keychains); `/proc/PID/environ` and `ps e` are the process
//! environments of T1552 ("unsecured credentials"); the `.env` family is the dotenv convention
//! (`.env`, `.env.local`, `.envrc` of direnv, `*.tfvars` of Terraform).

use super::super::command::SimpleCommand;
use super::super::Analysis;
use super::{glob_match, is_secret_var};

/// What a secret source is. The policy decides by kind: private keys, cloud credentials and
/// other processes' environments are asked about when read in a clean session; `.env`-style
/// files get the Read tool's decision; every kind flowing to the network is denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretKind {
    /// An SSH, TLS or PGP private key, a PKCS#12 bundle, a keychain (`~/.ssh/id_*` but not
    /// `*.pub`, `*.pem`, `*.key`, `*.p12`, `*.pfx`, `~/.gnupg`, `~/Library/Keychains`).
    PrivateKey,
    /// A cloud, registry or service credential store (`~/.aws/credentials`, gcloud, Azure,
    /// kubeconfig, Docker, `~/.npmrc`, `~/.pypirc`, `~/.netrc`, `~/.git-credentials`, gh,
    /// Terraform).
    CloudCredential,
    /// A project's environment file (`.env`, `.env.*` but not templates, `.envrc`, `*.tfvars`,
    /// `secrets.*`, a project's `.npmrc`).
    EnvFile,
    /// Another process's environment (`/proc/*/environ`, `ps e`).
    ProcessEnv,
    /// The shell's own environment printed whole (`env`, `printenv`, `set`, `export -p`).
    EnvDump,
    /// A folder that contains secrets (`~`, `~/.config`): archived or copied whole, it carries
    /// them.
    Folder,
}

impl SecretKind {
    /// A short name for messages (`a private key`, `cloud credentials`, ...).
    pub fn describe(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "a private key",
            SecretKind::CloudCredential => "cloud credentials",
            SecretKind::EnvFile => "an environment file",
            SecretKind::ProcessEnv => "another process's environment",
            SecretKind::EnvDump => "the whole environment",
            SecretKind::Folder => "a folder holding secrets",
        }
    }

    /// True for the kinds whose mere read is asked about in a clean session (and denied in a
    /// tainted one): private keys, cloud credentials, other processes' environments.
    pub fn read_is_sensitive(self) -> bool {
        matches!(
            self,
            SecretKind::PrivateKey | SecretKind::CloudCredential | SecretKind::ProcessEnv
        )
    }
}

/// `word` without quotes, curl's `@` and `name=@` prefixes, and a `--opt=` prefix: the path it
/// names, if it names one.
pub(crate) fn path_of_word(word: &str) -> &str {
    let p = word.trim_matches(|c| c == '"' || c == '\'');
    let p = p.strip_prefix('@').unwrap_or(p); // curl -d @file
    let p = p.strip_prefix('<').unwrap_or(p); // curl -F f=<file
    p.split_once('=')
        .map(|(_, v)| {
            let v = v.strip_prefix('@').unwrap_or(v);
            v.strip_prefix('<').unwrap_or(v)
        })
        .filter(|v| v.contains('/') || v.starts_with('.') || v.starts_with('~'))
        .unwrap_or(p)
}

/// The kind of secret a path, or a glob that can match one, names; `None` for anything else.
/// The word may carry curl's `@`/`name=@` prefixes and quotes. A glob counts only when it can
/// match a secret (`~/.aws/cred*`, `~/.ssh/id_*`, `.env*`, `/proc/*/environ`, `*.pem`), not
/// when it cannot (`dist/*`, `build/*.whl`: the shell's `*` does not match a leading dot).
pub fn secret_kind(word: &str) -> Option<SecretKind> {
    let p = path_of_word(word);
    if p.is_empty() || p.len() > 4096 {
        return None;
    }
    if p.contains(['*', '?', '[']) {
        return glob_kind(p);
    }
    path_kind(p)
}

/// Home folders as written: `~`, `$HOME`, `/home/NAME`, `/Users/NAME`, `/root`.
fn home_rest(p: &str) -> Option<&str> {
    for h in ["~", "$HOME", "${HOME}"] {
        if p == h {
            return Some("");
        }
        if let Some(r) = p.strip_prefix(h).and_then(|r| r.strip_prefix('/')) {
            return Some(r);
        }
    }
    if p == "/root" {
        return Some("");
    }
    if let Some(r) = p.strip_prefix("/root/") {
        return Some(r);
    }
    for base in ["/home/", "/Users/"] {
        if let Some(r) = p.strip_prefix(base) {
            return Some(r.split_once('/').map_or("", |(_, rest)| rest));
        }
    }
    None
}

/// Cloud and service credential files, relative to a home folder.
const HOME_CREDENTIALS: crate::strtab::StrTable = crate::str_table![
    ".aws/credentials",
    ".aws/config",
    ".kube/config",
    ".docker/config.json",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".boto",
    ".s3cfg",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/rclone/rclone.conf",
    ".config/doctl/config.yaml",
    ".my.cnf",
    ".mylogin.cnf",
    ".smbcredentials",
    ".databrickscfg",
    ".terraformrc",
    ".config/containers/auth.json",
    ".pulumi/credentials.json",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".ivy2/.credentials",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".bundle/config",
    ".yarnrc.yml",
    ".git-credential-cache",
    // Coding agents' own sign-in tokens.
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/claude/.credentials.json",
];

/// Shell and REPL history files under a home folder: commands typed with their secrets in
/// them (`export TOKEN=…`, `mysql -pPASS`). Sent anywhere they are a leak; read, they get the
/// Read tool's decision (the `.env` kind).
const HOME_HISTORIES: crate::strtab::StrTable = crate::str_table![
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".histfile",
    ".sh_history",
    ".ksh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".mysql_history",
    ".psql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
];

/// Folders under a home folder every file of which is a credential.
const HOME_CREDENTIAL_DIRS: crate::strtab::StrTable = crate::str_table![
    ".config/gcloud",
    ".azure",
    ".aws",
    ".kube",
    ".docker",
    ".config/github-copilot",
    // Service CLIs that keep a sign-in token or API key in their folder.
    ".wrangler",
    ".config/.wrangler",
    ".config/op",
    ".op",
    ".heroku",
    ".local/share/heroku",
    ".config/heroku",
    ".config/netlify",
    ".netlify",
    ".vercel",
    ".local/share/com.vercel.cli",
    ".fly",
    ".railway",
    ".supabase",
    ".config/stripe",
    ".config/glab-cli",
    ".config/configstore",
    ".config/hcloud",
    ".config/linode-cli",
    ".config/scw",
    ".config/ngrok",
    ".ngrok2",
    ".snowflake",
    ".oci",
    ".aliyun",
    ".bluemix",
    ".config/doctl",
    ".config/rclone",
    ".credentials",
    // Editors' secret stores (sign-in tokens of extensions): VS Code, its forks and its server.
    ".vscode-server/data/User/globalStorage",
    ".config/Code/User/globalStorage",
    ".config/Code - Insiders/User/globalStorage",
    ".config/VSCodium/User/globalStorage",
    ".config/Cursor/User/globalStorage",
    ".config/Windsurf/User/globalStorage",
    "Library/Application Support/Code/User/globalStorage",
    "Library/Application Support/Cursor/User/globalStorage",
];

/// File names that hold a sign-in token or key wherever a tool keeps its settings under a home
/// folder (a dot-folder, `.config`, `.local/share`, `Library/Application Support`), for the
/// tools no list names: `credentials*`, `auth.json`, `token`, `access_tokens.db`, `state.vscdb`.
const CREDENTIAL_FILE_NAMES: crate::strtab::StrTable = crate::str_table![
    "credentials",
    "credentials.json",
    "credentials.toml",
    "credentials.yml",
    "credentials.yaml",
    "credentials.db",
    "credentials.tfrc.json",
    "access_tokens.db",
    "auth.json",
    "auth.toml",
    "auth.yml",
    "auth.yaml",
    "token",
    "token.json",
    ".token",
    "access-token",
    "access_token",
    "refresh_token",
    "api_key",
    "apikey",
    "oauth_creds.json",
    "oauth2.json",
    "hosts.yml",
    "state.vscdb",
    "state.vscdb.backup",
    "secrets.json",
    "secrets.yml",
    "secrets.yaml",
];

/// Folders under a home folder that hold downloaded packages, never a tool's own settings: a
/// credential-looking name there is a package's file.
const HOME_PACKAGE_DIRS: crate::strtab::StrTable = crate::str_table![
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".npm",
    ".cache",
    ".local/lib",
    ".pyenv",
    ".nvm",
    ".gradle/caches",
    ".m2/repository",
    "go/pkg",
    ".vscode-server/bin",
    ".vscode-server/extensions",
    ".vscode/extensions",
];

/// Folders under a home folder that hold private keys (key rings and password stores too).
const HOME_KEY_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    "Library/Keychains",
    ".password-store",
    ".local/share/keyrings",
    ".config/sops/age",
];

/// Browser profile stores that hold passwords and session cookies, by file name, in a
/// browser's profile folder.
const BROWSER_STORES: crate::strtab::StrTable = crate::str_table![
    "key3.db",
    "key4.db",
    "logins.json",
    "cookies.sqlite",
    "cookies",
    "login data",
    "login data for account",
    "web data",
    "local state",
    "signons.sqlite",
];

/// Folder names of browser profiles (Linux and macOS).
const BROWSER_DIRS: crate::strtab::StrTable = crate::str_table![
    ".mozilla/firefox/",
    "/firefox/profiles/",
    "google-chrome",
    "/google/chrome/",
    "chromium/",
    "bravesoftware/",
    "microsoft-edge",
    "/microsoft edge/",
    "vivaldi/",
    ".librewolf/",
];

/// The kind of a path without glob characters.
fn path_kind(p: &str) -> Option<SecretKind> {
    let trimmed = p.trim_end_matches('/');
    let trimmed = if trimmed.is_empty() { p } else { trimmed };
    let lower = trimmed.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    // Other processes' environments.
    if lower.starts_with("/proc/") && name == "environ" {
        return Some(SecretKind::ProcessEnv);
    }
    if let Some(rest) = home_rest(trimmed) {
        let rest = rest.trim_end_matches('/');
        if rest.is_empty() || rest == ".config" || rest == ".local/share" {
            return Some(SecretKind::Folder);
        }
        if HOME_KEY_DIRS
            .iter()
            .any(|d| rest == *d || rest.starts_with(&format!("{d}/")))
        {
            return key_dir_file(rest);
        }
        if HOME_CREDENTIALS.contains(rest) {
            return Some(SecretKind::CloudCredential);
        }
        if HOME_HISTORIES.contains(rest) {
            return Some(SecretKind::EnvFile);
        }
        if HOME_CREDENTIAL_DIRS
            .iter()
            .any(|d| rest == d || rest.starts_with(&format!("{d}/")))
        {
            return Some(SecretKind::CloudCredential);
        }
        if credential_named(rest) {
            return Some(SecretKind::CloudCredential);
        }
    }
    // Editors' secret stores however the home folder is written.
    if lower.contains("/user/globalstorage/state.vscdb") {
        return Some(SecretKind::CloudCredential);
    }
    // A key folder named relatively (`.ssh`, `.ssh/id_rsa`, `backup/.ssh/id_ed25519`).
    if let Some(i) = lower.find(".ssh") {
        let at_start = i == 0 || lower.as_bytes()[i - 1] == b'/';
        let rest = &lower[i..];
        if at_start && (rest == ".ssh" || rest.starts_with(".ssh/")) {
            return key_dir_file(rest);
        }
    }
    if lower.contains(".aws/credentials")
        || lower.contains(".config/gcloud/")
        || lower.contains("application_default_credentials")
        || lower.contains(".azure/")
        || lower.contains(".kube/config")
        || lower.contains(".docker/config.json")
        || lower.contains(".gnupg/private-keys")
    {
        return Some(SecretKind::CloudCredential);
    }
    // The same credential files wherever the home folder is (a container's, another user's).
    if matches!(
        name,
        ".netrc"
            | "_netrc"
            | ".pgpass"
            | ".git-credentials"
            | "credentials.json"
            | ".vault-token"
            | ".my.cnf"
            | ".mylogin.cnf"
            | ".pypirc"
            | ".s3cfg"
            | ".boto"
            | ".smbcredentials"
            | ".smbcreds"
    ) {
        return Some(SecretKind::CloudCredential);
    }
    // Password hashes of a web server: the Read tool's decision, values remembered.
    if name == ".htpasswd" || name == "htpasswd" {
        return Some(SecretKind::EnvFile);
    }
    // A Kubernetes pod's service-account token; an SSH server's host keys.
    if lower.starts_with("/var/run/secrets/") || lower.starts_with("/run/secrets/") {
        return Some(SecretKind::CloudCredential);
    }
    if lower.starts_with("/etc/ssh/ssh_host_") && !name.ends_with(".pub") {
        return Some(SecretKind::PrivateKey);
    }
    // Agents' sign-in tokens anywhere a home folder is written differently.
    if lower.ends_with(".claude/.credentials.json")
        || lower.ends_with(".codex/auth.json")
        || lower.ends_with(".gemini/oauth_creds.json")
        || lower.contains(".config/github-copilot/")
        || lower.ends_with("sops/age/keys.txt")
    {
        return Some(SecretKind::CloudCredential);
    }
    // Cloud service-account key files (`my-project-serviceAccount.json`).
    if name.ends_with(".json")
        && (name.contains("serviceaccount")
            || name.contains("service-account")
            || name.contains("service_account"))
        && !is_env_template(name)
    {
        return Some(SecretKind::CloudCredential);
    }
    if BROWSER_STORES.contains(name) && BROWSER_DIRS.iter().any(|d| lower.contains(d)) {
        return Some(SecretKind::CloudCredential);
    }
    // Terraform state holds every secret of the resources it manages, in clear.
    if (name.starts_with("terraform.tfstate")
        || name.ends_with(".tfstate")
        || name.ends_with(".tfstate.backup"))
        && !is_env_template(name)
    {
        return Some(SecretKind::EnvFile);
    }
    // Cloudflare Workers' local secrets.
    if name == ".dev.vars" || (name.starts_with(".dev.vars.") && !is_env_template(name)) {
        return Some(SecretKind::EnvFile);
    }
    if matches!(name, ".npmrc" | ".pypirc") {
        return Some(SecretKind::EnvFile);
    }
    if let Some(k) = key_file_name(name) {
        return Some(k);
    }
    env_file_name(name).then_some(SecretKind::EnvFile)
}

/// True when `rest` (a path relative to a home folder) is a file with a credential's name
/// ([`CREDENTIAL_FILE_NAMES`]) in a tool's settings folder: under a dot-folder, `.config`,
/// `.local/share` or `Library/Application Support`, at most five levels down, outside the
/// package folders ([`HOME_PACKAGE_DIRS`]).
fn credential_named(rest: &str) -> bool {
    let settings = rest.starts_with('.') || rest.starts_with("Library/Application Support/");
    if !settings || rest.split('/').count() > 6 {
        return false;
    }
    if HOME_PACKAGE_DIRS
        .iter()
        .any(|d| rest == d || rest.starts_with(&format!("{d}/")))
        || rest.contains("/node_modules/")
        || rest.contains("/site-packages/")
    {
        return false;
    }
    let name = rest.rsplit('/').next().unwrap_or(rest).to_ascii_lowercase();
    rest.contains('/') && CREDENTIAL_FILE_NAMES.contains(name.as_str())
}

/// A file in a key folder (`.ssh/...`, `.gnupg/...`), `rest` relative to the home folder (or
/// starting at `.ssh`): private keys are secrets, public keys, `known_hosts`, `config` and
/// `authorized_keys` are not; the folder itself is.
fn key_dir_file(rest: &str) -> Option<SecretKind> {
    let lower = rest.to_ascii_lowercase();
    let mut parts = lower.splitn(2, '/');
    let dir = parts.next().unwrap_or("");
    let Some(file) = parts.next().filter(|f| !f.is_empty()) else {
        return Some(SecretKind::PrivateKey); // the whole folder
    };
    let name = file.rsplit('/').next().unwrap_or(file);
    if dir == ".ssh" {
        let public = name.ends_with(".pub")
            || matches!(
                name,
                "known_hosts" | "known_hosts.old" | "config" | "authorized_keys" | "environment"
            );
        return (!public).then_some(SecretKind::PrivateKey);
    }
    if name.ends_with(".pub") || name == "pubring.kbx" || name == "trustdb.gpg" {
        return None;
    }
    Some(SecretKind::PrivateKey)
}

/// A key file by its name (`*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.ppk`, `id_rsa`...), less
/// names that say they are public (`cert.pem`, `ca.pem`, `fullchain.pem`, `*.pub.pem`).
fn key_file_name(name: &str) -> Option<SecretKind> {
    if matches!(
        name,
        "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519" | "id_ecdsa_sk" | "id_ed25519_sk"
    ) {
        return Some(SecretKind::PrivateKey);
    }
    let key_ext = [".key", ".p12", ".pfx", ".ppk", ".jks", ".keystore"]
        .iter()
        .any(|e| name.ends_with(e));
    let pem = name.ends_with(".pem");
    if !(key_ext || pem) {
        return None;
    }
    let public = if pem {
        [
            "pub", "cert", "crt", "chain", "ca.", "ca-", "ca_", "bundle", "csr",
        ]
        .iter()
        .any(|w| name.contains(w))
            && !name.contains("private")
    } else {
        name.contains("pub")
    };
    (!public).then_some(SecretKind::PrivateKey)
}

/// `.env`, `.env.*` (not `.example`, `.sample`, `.template`, `.dist`, `.defaults`, `.schema`),
/// `.envrc`, `*.tfvars`, `*.tfvars.json`, `secrets.*`.
fn env_file_name(name: &str) -> bool {
    if name == ".env" || name == ".envrc" {
        return true;
    }
    if name.starts_with(".env.") && !is_env_template(name) {
        return true;
    }
    if name.ends_with(".tfvars") || name.ends_with(".tfvars.json") {
        return !is_env_template(name);
    }
    if let Some(rest) = name.strip_prefix("secrets.") {
        return !rest.is_empty() && !is_env_template(name);
    }
    false
}

/// True for a template of an environment file (`.env.example`, `x.tfvars.sample`...).
pub(crate) fn is_env_template(name: &str) -> bool {
    [
        "example", "sample", "template", "dist", "defaults", "schema",
    ]
    .iter()
    .any(|s| name.contains(s))
}

/// Secret paths a glob is tried against (shell `*` does not match a leading dot).
const SAMPLES: crate::strtab::StrTable = crate::str_table![
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.ssh/id_ecdsa",
    "~/.aws/credentials",
    "~/.aws/config",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.npmrc",
    "~/.pypirc",
    "~/.pgpass",
    "~/.git-credentials",
    "~/.config/gh/hosts.yml",
    "~/.config/gcloud/credentials.db",
    "~/.config/gcloud/application_default_credentials.json",
    "~/.azure/accessTokens.json",
    "~/.gnupg/private-keys-v1.d/key.key",
    "/proc/self/environ",
    "/proc/1/environ",
    "/proc/1/task/1/environ",
    "~/.claude/.credentials.json",
    "~/.codex/auth.json",
    "~/.gemini/oauth_creds.json",
    "~/.bash_history",
    "~/.zsh_history",
];

/// Secret names a glob without a folder (or with a project folder) is tried against.
const NAME_SAMPLES: &[&str] = &[".env", ".env.local", ".env.production", ".envrc"];

/// The kind of secret a glob can match, if any.
fn glob_kind(p: &str) -> Option<SecretKind> {
    // The pattern with each wildcard made one ordinary character: `*.pem` is `x.pem`,
    // `secrets.*` is `secrets.x`.
    let filled: String = {
        let mut out = String::new();
        let mut in_class = false;
        for c in p.chars() {
            match c {
                '[' => {
                    in_class = true;
                    out.push('x');
                }
                ']' if in_class => in_class = false,
                _ if in_class => {}
                '*' | '?' => out.push('x'),
                _ => out.push(c),
            }
        }
        out
    };
    if let Some(k) = path_kind(&filled).filter(|k| *k != SecretKind::Folder) {
        return Some(k);
    }
    let pat_parts: Vec<&str> = p.trim_end_matches('/').split('/').collect();
    let home_form = |s: &str| -> Vec<String> {
        match s.strip_prefix("~/") {
            Some(rest) => ["~", "$HOME", "${HOME}", "/root", "/home/u", "/Users/u"]
                .iter()
                .map(|h| format!("{h}/{rest}"))
                .collect(),
            None => vec![s.to_string()],
        }
    };
    for s in SAMPLES {
        for full in home_form(s) {
            let parts: Vec<&str> = full.split('/').collect();
            if parts.len() == pat_parts.len()
                && pat_parts
                    .iter()
                    .zip(&parts)
                    .all(|(a, b)| component_match(a, b))
            {
                return path_kind(&full);
            }
        }
    }
    // A file-name glob in a project folder (`.env*`, `config/.e*`).
    let last = pat_parts.last().copied().unwrap_or("");
    let absolute = p.starts_with('/') || p.starts_with('~') || p.starts_with('$');
    let dirs = &pat_parts[..pat_parts.len().saturating_sub(1)];
    if (!absolute || !pat_parts.iter().any(|x| x.contains(['*', '?', '['])))
        && NAME_SAMPLES.iter().any(|n| component_match(last, n))
        && !dirs
            .iter()
            .any(|x| x.contains(['*', '?', '[']) && !x.starts_with('.'))
    {
        return Some(SecretKind::EnvFile);
    }
    None
}

/// One path component against one glob component, the shell's way: a leading `.` is matched
/// only by a leading `.` in the pattern.
fn component_match(pat: &str, name: &str) -> bool {
    if name.starts_with('.') && !pat.starts_with('.') {
        return false;
    }
    if !pat.contains(['*', '?', '[']) {
        return pat == name;
    }
    glob_match(pat, name)
}

/// Programs that use a key or credential they are given rather than output or send its
/// content (`ssh -i KEY`, `openssl req -key KEY`, `chmod 600 KEY`, `ls ~/.ssh`).
const USES_NOT_READS: crate::strtab::StrTable = crate::str_table![
    "ls",
    "stat",
    "test",
    "[",
    "[[",
    "file",
    "chmod",
    "chown",
    "chgrp",
    "touch",
    "mkdir",
    "rm",
    "rmdir",
    "shred",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "openssl",
    "age",
    "keytool",
    "certbot",
    "realpath",
    "readlink",
    "dirname",
    "basename",
    "du",
    "wc",
    "source",
    ".",
    "direnv",
    "dotenv",
    "echo",
    "printf",
    "cd",
    "pushd",
    "code",
    "vim",
    "vi",
    "nvim",
    "nano",
    "emacs",
    "setfacl",
    "getfacl",
    "lsattr",
    "chattr",
    "find",
    "fd",
    "tree",
    "export",
    "unset",
    "mv",
    "ln",
];

/// Options whose value is a key or config file the program uses for its own connection, not
/// data it sends (`ssh -i`, `curl --key`/`--cert`, `docker --env-file`, `terraform
/// -var-file`, `kubectl --kubeconfig`).
fn uses_option(opt: &str, program: &str) -> bool {
    let ssh_like = matches!(
        program,
        "ssh" | "scp" | "sftp" | "rsync" | "git" | "autossh"
    );
    (ssh_like && (opt == "-i" || opt == "-F"))
        || matches!(
            opt,
            "--key"
                | "--cert"
                | "-E"
                | "--cacert"
                | "--capath"
                | "--proxy-key"
                | "--proxy-cert"
                | "--private-key"
                | "--certificate"
                | "--ca-certificate"
                | "--env-file"
                | "-var-file"
                | "--var-file"
                | "--kubeconfig"
                | "--config-file"
                | "--netrc-file"
                | "--identity-file"
                | "--key-file"
                | "--keyfile"
        )
}

/// One secret a command reads, with the word that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretRead {
    /// The word as written (`~/.ssh/id_rsa`, `.env`, `ps`, `env`).
    pub word: String,
    /// The path it names, located by the `cd`s before it (and `tar -C`); the word for a
    /// program-level source (`ps eww`).
    pub path: String,
    /// What it is.
    pub kind: SecretKind,
    /// The content comes out where the agent or another program sees it: the program is one
    /// the capability table knows to print, copy, send or interpret what it reads (`cat`,
    /// `base64`, `cp`, `curl`, `python3`), or the source is a program's own output (`ps eww`).
    /// False for a program that only uses the file (a signing tool, a VPN, a client given
    /// its key): those are everyday work, and what they do with the key is not shown.
    pub shown: bool,
    /// The program is not in the capability table (nor a shell builtin): what it does with
    /// the file is unknown. In a tainted session such a read is denied.
    pub unknown: bool,
}

impl SimpleCommand {
    /// The secrets whose content this command reads (files it is given as operands or `<`
    /// inputs, other processes' environments, environment dumps, `gpg --export-secret-keys`),
    /// less keys it only uses (`ssh -i KEY`, `curl --key KEY`) and files it writes. Relative
    /// names are located by the `cd`s before the command (`cd ~/.ssh && curl -T id_rsa`) and
    /// by `tar -C DIR`.
    pub fn secret_reads(&self) -> Vec<SecretRead> {
        let mut out = Vec::new();
        let p = self.program.as_str();
        let writes = self.writes();
        let uses_only = USES_NOT_READS.contains(p);
        let cap = crate::shell::capabilities::lookup(p);
        // `read`/`mapfile` put the content in variables the line uses; `$(<F)` (no program)
        // is the content itself.
        let shown = matches!(p, "read" | "mapfile" | "readarray" | "")
            || cap.is_some_and(|c| {
                !matches!(
                    c.does,
                    crate::shell::capabilities::Does::BuildTest
                        | crate::shell::capabilities::Does::Wraps
                )
            });
        let unknown = cap.is_none() && !uses_only && !is_builtin(p) && !self.computed_program;
        let mut dir = self.dir.clone();
        let mut skip_next = false;
        let mut words = self.args.iter().peekable();
        while let Some(w) = words.next() {
            if skip_next {
                skip_next = false;
                continue;
            }
            if uses_option(w, p) {
                skip_next = true;
                continue;
            }
            if let Some((opt, _)) = w.split_once('=') {
                if uses_option(opt, p) {
                    continue;
                }
            }
            if (p == "ssh" || p == "scp" || p == "git")
                && (w.starts_with("-i") || w.contains("IdentityFile"))
            {
                continue;
            }
            // `git -c KEY=VALUE`: a config value, not a file git reads; a value git runs is
            // analysed as a command line of its own (`core.sshCommand="ssh -i KEY"`).
            if p == "git" && (w == "-c" || w == "--config-env") {
                skip_next = true;
                continue;
            }
            // `tar -C DIR` changes where the operands after it are found.
            if p == "tar" && (w == "-C" || w == "--directory") {
                if let Some(d) = words.next() {
                    dir = dir.cd(std::slice::from_ref(d));
                }
                continue;
            }
            if uses_only || writes.iter().any(|x| x == w) {
                continue;
            }
            // An option is not a path (its value after `=` or `@` may be: `--data=@.env`),
            // and a URL names no local file (`wget https://host/site.key`).
            if (w.starts_with('-') && !w.contains(['=', '@'])) || w.contains("://") {
                continue;
            }
            let path = path_of_word(w);
            let located = dir.locate(path).unwrap_or_else(|| path.to_string());
            if let Some(kind) = secret_kind(&located).or_else(|| secret_kind(w)) {
                // A home folder counts only for programs that copy or archive it whole.
                if kind == SecretKind::Folder && !copies_whole(self) {
                    continue;
                }
                out.push(SecretRead {
                    word: w.clone(),
                    path: located,
                    kind,
                    shown,
                    unknown,
                });
            }
        }
        for r in &self.redirect_reads {
            let located = self.dir.locate(r).unwrap_or_else(|| r.clone());
            if let Some(kind) = secret_kind(&located).filter(|k| *k != SecretKind::Folder) {
                out.push(SecretRead {
                    word: r.clone(),
                    path: located,
                    kind,
                    shown,
                    unknown,
                });
            }
        }
        if let Some(kind) = program_source(self) {
            out.push(SecretRead {
                word: self.program.clone(),
                path: self.program.clone(),
                kind,
                shown: true,
                unknown: false,
            });
        }
        out
    }
}

/// Programs that copy or archive a folder whole (so `tar czf x ~`, `rsync -a ~/ host:`,
/// `zip -r x ~/.config` carry every secret in it).
fn copies_whole(c: &SimpleCommand) -> bool {
    let p = c.program.as_str();
    match p {
        "tar" | "bsdtar" => {
            // Creating or appending an archive, not extracting one.
            let first = c.args.first().map_or("", String::as_str);
            let modes = |w: &str| {
                (!w.starts_with("--") && (w.contains('c') || w.contains('r') || w.contains('u')))
                    && !w.contains('x')
            };
            (!first.starts_with('-') && modes(first))
                || c.args.iter().any(|w| {
                    (w.starts_with('-') && !w.starts_with("--") && modes(w))
                        || matches!(w.as_str(), "--create" | "--append")
                })
        }
        "zip" | "7z" | "7za" | "rar" | "cpio" | "rclone" | "restic" | "borg" => true,
        // The last operand is the destination.
        "rsync" | "scp" | "cp" | "rsync-ssl" => true,
        _ => false,
    }
}

/// A secret source that is a program rather than a file: `ps e`/`ps eww`/`ps auxe` (other
/// processes' environments), `env`/`printenv`/`set`/`export -p`/`declare -x` with no operands
/// (the whole environment), `gpg --export-secret-keys`, `security dump-keychain` or
/// `find-*-password -w` (macOS keychains).
fn program_source(c: &SimpleCommand) -> Option<SecretKind> {
    let a = &c.args;
    match c.program.as_str() {
        // BSD-style options (no dash) with `e`: show each process's environment.
        "ps" => a
            .iter()
            .any(|w| {
                !w.starts_with('-')
                    && w.len() <= 8
                    && w.contains('e')
                    && w.chars().all(|ch| ch.is_ascii_alphabetic())
            })
            .then_some(SecretKind::ProcessEnv),
        "env" | "printenv" if a.iter().all(|w| w.starts_with('-')) => Some(SecretKind::EnvDump),
        "set" if a.is_empty() => Some(SecretKind::EnvDump),
        "export" if a.is_empty() || a.iter().all(|w| w == "-p") => Some(SecretKind::EnvDump),
        "declare" | "typeset"
            if !a.is_empty()
                && a.iter().all(|w| w.starts_with('-'))
                && a.iter().any(|w| w.contains('x') || w.contains('p')) =>
        {
            Some(SecretKind::EnvDump)
        }
        "gpg" | "gpg2"
            if a.iter()
                .any(|w| w.starts_with("--export-secret") || w == "--export-ssh-key") =>
        {
            Some(SecretKind::PrivateKey)
        }
        "security"
            if a.first().is_some_and(|s| {
                s == "dump-keychain"
                    || (s.starts_with("find-")
                        && s.ends_with("-password")
                        && a.iter().any(|w| w == "-w" || w == "-g"))
            }) =>
        {
            Some(SecretKind::PrivateKey)
        }
        _ => None,
    }
}

/// What a line does with secret data ([`Analysis::secret_flows`]).
#[derive(Debug, Clone, Default)]
pub struct Flows {
    /// The first secret that reaches a network sink, if any.
    pub egress: Option<super::SecretFlow>,
    /// Every secret read, in order (nested commands included).
    pub reads: Vec<SecretRead>,
    /// Files the line writes secret data into, located (`tar czf /tmp/b.tgz ~/.ssh`,
    /// `env > /tmp/e`), with the word of the secret.
    pub secret_files: Vec<(String, String)>,
    /// Files the line downloads into, located (`curl -o F`, `wget -O F`, `curl URL > F`).
    pub downloads: Vec<String>,
    /// Files the line runs, located (`sh F`, `bash F`, `./F`, `python F`, `source F`).
    pub runs: Vec<String>,
}

/// The command a compound-command keyword word introduces, as a lexer that does not know
/// compound commands leaves it (`do nslookup $c.x` read as program `do`); the command itself
/// otherwise.
fn behind_keyword(c: &SimpleCommand) -> std::borrow::Cow<'_, SimpleCommand> {
    const KEYWORDS: &[&str] = &["do", "then", "else", "elif", "{", "!", "time"];
    match c.args.split_first() {
        Some((first, rest)) if KEYWORDS.contains(&c.program.as_str()) => {
            let mut inner = c.clone();
            inner.program = first.rsplit('/').next().unwrap_or(first).to_string();
            inner.args = rest.to_vec();
            std::borrow::Cow::Owned(inner)
        }
        _ => std::borrow::Cow::Borrowed(c),
    }
}

/// Says whether a located path is a file an earlier call of the session wrote secret data
/// into (its evidence); see [`Analysis::secret_flows`].
type Known<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Interpreters whose first operand is a script they run.
const SCRIPT_RUNNERS: crate::strtab::StrTable = crate::str_table![
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "python", "python3", "python2", "node",
    "perl", "ruby", "php", "source", ".", "deno", "bun", "pwsh", "Rscript", "lua", "tclsh",
];

impl Analysis {
    /// Follows secret data through the line. `known` says whether a located path is a file
    /// that received secret data in an earlier call of the session (its evidence), so that
    /// uploading it now counts. A secret reaches a network sink when:
    /// - a network command names it (a file, a glob that can match one, a variable, a file
    ///   written with secret data earlier in the line or session);
    /// - it is read earlier in the same pipeline (`cat .env | base64 | curl -d @- …`);
    /// - a substitution that reads it feeds the network command (`ping $(cat .env).x`);
    /// - it is read into the line's variables or a loop (`for c in $(base64 .env)`,
    ///   `K=$(cat key)`, `… | while read l`) and a network command takes a `$` word.
    pub fn secret_flows(&self, known: &dyn Fn(&str) -> Option<String>) -> Flows {
        self.flows_with(Some(known))
    }

    /// [`Analysis::secret_flows`] with no files remembered from earlier calls, computed once
    /// per analysis and kept (the policy asks for it from several checks of one call).
    pub fn plain_flows(&self) -> &Flows {
        self.flows.get_or_init(|| self.flows_with(None))
    }

    /// [`Analysis::secret_flows`]; `known: None` is a session with no remembered files (the
    /// same as a `known` that always answers `None`, without asking it for every operand).
    fn flows_with(&self, known: Option<Known<'_>>) -> Flows {
        let mut f = Flows::default();
        let mut secret_files: Vec<(String, String)> = Vec::new();
        let mut vars_secret: Option<super::SecretFlow> = None;
        self.walk_flows(known, &mut f, &mut secret_files, &mut vars_secret);
        if f.egress.is_none() {
            if let Some(v) = &vars_secret {
                let net_with_var = self.all_commands().into_iter().any(|c| {
                    let c = behind_keyword(c);
                    c.is_network() && c.args.iter().any(|a| a.contains('$') || a.contains('…'))
                });
                if net_with_var {
                    f.egress = Some(v.clone());
                }
            }
        }
        if f.egress.is_none() {
            f.egress = secret_variable_egress(self);
        }
        f.secret_files = secret_files;
        f
    }

    fn walk_flows(
        &self,
        known: Option<Known<'_>>,
        f: &mut Flows,
        secret_files: &mut Vec<(String, String)>,
        vars_secret: &mut Option<super::SecretFlow>,
    ) {
        // The secret word each nested analysis reads, by (pipeline, command).
        let mut nested_secret: Vec<(usize, usize, super::SecretFlow)> = Vec::new();
        for (pi, ci, n) in &self.nested {
            let before = f.reads.len();
            let mut inner = Flows::default();
            n.walk_flows(known, &mut inner, secret_files, vars_secret);
            if f.egress.is_none() {
                f.egress = inner.egress.clone();
            }
            f.reads.extend(inner.reads);
            f.downloads.extend(inner.downloads);
            f.runs.extend(inner.runs);
            let reads_secret = f.reads.len() > before
                || n.all_commands()
                    .iter()
                    .any(|c| c.args.iter().any(|a| is_secret_var(a)));
            if reads_secret {
                let word = f
                    .reads
                    .get(before)
                    .map_or_else(|| "$(…)".to_string(), |r| r.word.clone());
                nested_secret.push((
                    *pi,
                    *ci,
                    super::SecretFlow {
                        word,
                        file: f.reads.len() > before,
                    },
                ));
            }
        }
        for (pi, p) in self.pipelines.iter().enumerate() {
            // Whether each command reaches the network, asked once per command.
            let nets: Vec<bool> = p.iter().map(SimpleCommand::is_network).collect();
            let net = nets.contains(&true);
            let mut carried: Option<super::SecretFlow> = None;
            let mut first_own: Option<super::SecretFlow> = None;
            let mut downloaded = false;
            // `find SECRET_DIR …` (or `fd`, `ls`) earlier in the pipe: the names it prints.
            let mut listed: Option<(String, String, SecretKind)> = None;
            for (ci, c) in p.iter().enumerate() {
                let c_net = nets.get(ci).copied().unwrap_or(false);
                if let Some((w, path, kind)) = listed_secret(c, &self.nested, pi, ci) {
                    // Its own `-exec cat {} +`: the content is shown.
                    f.reads.push(SecretRead {
                        word: w,
                        path,
                        kind,
                        shown: true,
                        unknown: false,
                    });
                }
                if let Some((w, path, kind)) = &listed {
                    if c.via_xargs && shows(c) {
                        f.reads.push(SecretRead {
                            word: w.clone(),
                            path: path.clone(),
                            kind: *kind,
                            shown: true,
                            unknown: false,
                        });
                    }
                }
                if matches!(
                    c.program.as_str(),
                    "find" | "fd" | "fdfind" | "ls" | "locate" | "tree"
                ) {
                    if let Some((w, path)) = names_secret(c) {
                        if let Some(k) = secret_kind(&path).or_else(|| secret_kind(&w)) {
                            listed = Some((w, path, k));
                        }
                    }
                }
                // What this command reads itself.
                let mut own: Option<super::SecretFlow> = None;
                for r in c.secret_reads() {
                    if own.is_none() {
                        own = Some(super::SecretFlow {
                            word: r.word.clone(),
                            file: true,
                        });
                    }
                    f.reads.push(r);
                }
                // A substitution that prints a secret's path names that secret: the command
                // read with that path in the substitution's place.
                if own.is_none() && c.args.iter().any(|a| a.contains("$(…)")) {
                    let named = self
                        .nested
                        .iter()
                        .filter(|(a, b, _)| *a == pi && *b == ci)
                        .find_map(|(_, _, n)| nested_names_secret(n));
                    if let Some(path) = named {
                        let mut with = c.clone();
                        for a in &mut with.args {
                            *a = a.replacen("$(…)", &path, 1);
                        }
                        for r in with.secret_reads() {
                            if own.is_none() {
                                own = Some(super::SecretFlow {
                                    word: r.word.clone(),
                                    file: true,
                                });
                            }
                            f.reads.push(r);
                        }
                    }
                }
                // `read`/`mapfile` of a secret: the line's variables hold it.
                if matches!(c.program.as_str(), "read" | "mapfile" | "readarray") {
                    if let Some(o) = &own {
                        vars_secret.get_or_insert(o.clone());
                    }
                }
                let operand_paths = || {
                    c.args
                        .iter()
                        .chain(&c.redirect_reads)
                        .filter_map(|w| {
                            let p = path_of_word(w);
                            c.dir.locate(p).map(|l| (w.clone(), l))
                        })
                        .collect::<Vec<_>>()
                };
                // Operands are looked up only when something could match them: a file
                // written with secret data earlier in the line or remembered from the session.
                if own.is_none() && (known.is_some() || !secret_files.is_empty()) {
                    for (w, l) in operand_paths() {
                        let in_line = secret_files.iter().any(|(s, _)| *s == l);
                        let earlier = known.and_then(|k| k(&l));
                        if in_line || earlier.is_some() {
                            own = Some(super::SecretFlow {
                                word: earlier
                                    .map_or(w.clone(), |e| format!("{w} (written by: {e})")),
                                file: true,
                            });
                            break;
                        }
                    }
                }
                // A command script given to a network client (`lftp -e 'put .env'`,
                // `smbclient -c 'put .env'`, `sftp -b`-style words): the files it names.
                if own.is_none() && c_net {
                    let scripted = c
                        .args
                        .iter()
                        .filter(|a| a.contains([' ', ';']))
                        .find_map(|a| {
                            a.split([' ', ';', '\t', '\n'])
                                .filter(|t| !t.is_empty() && !t.contains("://"))
                                .find(|t| {
                                    let l = c.dir.locate(t).unwrap_or_else(|| (*t).to_string());
                                    secret_kind(&l).is_some_and(|k| {
                                        !matches!(k, SecretKind::Folder | SecretKind::EnvDump)
                                    })
                                })
                                .map(str::to_string)
                        });
                    if let Some(w) = scripted {
                        own = Some(super::SecretFlow {
                            word: w,
                            file: true,
                        });
                    }
                }
                if own.is_none() && c_net {
                    if let Some(w) = c.args.iter().find(|a| is_secret_var(a)) {
                        own = Some(super::SecretFlow {
                            word: w.clone(),
                            file: false,
                        });
                    }
                }
                if let Some((_, _, s)) = nested_secret.iter().find(|(a, b, _)| *a == pi && *b == ci)
                {
                    if own.is_none() {
                        own = Some(s.clone());
                    }
                    // A substitution read into a variable or a loop (`for x in $(…)`,
                    // `K=$(…)`), or a command with no program: the line's variables hold it.
                    if s.file && !c_net {
                        vars_secret.get_or_insert(s.clone());
                    }
                }
                if first_own.is_none() {
                    first_own.clone_from(&own);
                }
                let holds = own.clone().or_else(|| carried.clone());
                if let Some(s) = &holds {
                    if c_net && f.egress.is_none() {
                        f.egress = Some(s.clone());
                    }
                    if s.file {
                        for w in c.writes() {
                            if let Some(l) = c.dir.locate(&w) {
                                if !secret_files.iter().any(|(x, _)| *x == l) {
                                    secret_files.push((l, s.word.clone()));
                                }
                            }
                        }
                    }
                    // Piped into a loop's `read` or `xargs`: the line's variables hold it.
                    if carried.is_some()
                        && s.file
                        && matches!(c.program.as_str(), "read" | "while" | "xargs")
                    {
                        vars_secret.get_or_insert(s.clone());
                    }
                    carried = holds.clone();
                }
                // A link, copy, move or transformed copy of a secret is a secret file.
                if CARRIES_INTO_WRITES.contains(c.program.as_str()) {
                    if let Some((w, _)) = names_secret(c) {
                        for out in c.writes() {
                            if let Some(l) = c.dir.locate(&out) {
                                if !secret_files.iter().any(|(x, _)| *x == l) {
                                    secret_files.push((l, w.clone()));
                                }
                            }
                        }
                    }
                }
                // Downloads: what a downloader writes, and what the rest of its pipeline does.
                if c.is_downloader() {
                    downloaded = true;
                    for w in download_names(c) {
                        if let Some(l) = c.dir.locate(&w) {
                            if !f.downloads.contains(&l) {
                                f.downloads.push(l);
                            }
                        }
                    }
                }
                // `hash -p PATH NAME`: NAME runs PATH from here on.
                if c.program == "hash" {
                    if let Some(i) = c.args.iter().position(|a| a == "-p") {
                        if let Some(l) = c.args.get(i + 1).and_then(|p| c.dir.locate(p)) {
                            f.runs.push(l);
                        }
                    }
                }
                if downloaded {
                    for w in c.writes() {
                        if let Some(l) = c.dir.locate(&w) {
                            if !f.downloads.contains(&l) {
                                f.downloads.push(l);
                            }
                        }
                    }
                }
                // Files this command runs.
                let prog_is_path = c.argv0.contains('/');
                if prog_is_path {
                    if let Some(l) = c.dir.locate(&c.argv0) {
                        f.runs.push(l);
                    }
                }
                if SCRIPT_RUNNERS.contains(c.program.as_str()) {
                    if let Some(script) = c.args.iter().find(|a| !a.starts_with('-')) {
                        let code_flag = c
                            .args
                            .iter()
                            .any(|a| matches!(a.as_str(), "-c" | "-e" | "-m"));
                        if !code_flag {
                            if let Some(l) = c.dir.locate(script) {
                                f.runs.push(l);
                            }
                        }
                    }
                }
            }
            // A secret read anywhere in a pipeline that reaches the network.
            if net && f.egress.is_none() {
                f.egress = first_own;
            }
        }
        if f.egress.is_none() {
            f.egress = git_carries_secret(self, &nested_secret);
        }
    }
}

/// Files a downloader writes under a name it computes from the URL: `wget URL` (the URL
/// path's last part, `index.html` for none; in `-P DIR`/`--directory-prefix`, unless
/// `-O`/`--output-document`/`--spider` says otherwise), `curl -O`/`--remote-name`/
/// `--remote-name-all` (in `--output-dir DIR`). At most 16 names.
pub(crate) fn download_names(c: &SimpleCommand) -> Vec<String> {
    let a = &c.args;
    // The value of short option `short` (also inside a cluster, `-qP DIR`, `-qPDIR`, where
    // `valued` are the program's short options taking a value) or `long` (`--long DIR`,
    // `--long=DIR`).
    let value_of = |short: Option<char>, valued: &str, long: &str| -> Option<String> {
        let mut it = a.iter();
        while let Some(w) = it.next() {
            if w == long {
                return it.next().cloned();
            }
            if let Some(v) = w.strip_prefix(&format!("{long}=")) {
                return Some(v.to_string());
            }
            let (Some(ch), Some(cluster)) = (short, w.strip_prefix('-')) else {
                continue;
            };
            if cluster.starts_with('-') {
                continue;
            }
            if let Some(k) = cluster.find(|x: char| x == ch || valued.contains(x)) {
                if cluster[k..].starts_with(ch) {
                    let rest = &cluster[k + ch.len_utf8()..];
                    return if rest.is_empty() {
                        it.next().cloned()
                    } else {
                        Some(rest.to_string())
                    };
                }
            }
        }
        None
    };
    // True when a short cluster holds `ch` before any option taking a value.
    let cluster_has = |ch: char, valued: &str| {
        a.iter().take_while(|w| *w != "--").any(|w| {
            w.strip_prefix('-').is_some_and(|cl| {
                !cl.starts_with('-')
                    && cl
                        .chars()
                        .take_while(|x| !valued.contains(*x))
                        .any(|x| x == ch)
            })
        })
    };
    let urls = || a.iter().filter(|w| w.contains("://")).take(16);
    let name_of = |url: &str, default: &str| -> String {
        let path = url.split_once("://").map_or(url, |(_, r)| r);
        let path = path.split(['?', '#']).next().unwrap_or(path);
        match path.split_once('/') {
            Some((_, p)) => {
                let n = p.rsplit('/').next().unwrap_or("");
                if n.is_empty() {
                    default.to_string()
                } else {
                    n.to_string()
                }
            }
            None => default.to_string(),
        }
    };
    let join = |dir: Option<String>, n: String| match dir {
        Some(d) if !d.is_empty() => format!("{}/{n}", d.trim_end_matches('/')),
        _ => n,
    };
    let mut out = Vec::new();
    match c.program.as_str() {
        "wget" | "wget2" => {
            // Short options of wget that take a value (`-O` apart).
            const VALUED: &str = "oaePUtTwQiBDlARIXF";
            let named = cluster_has('O', VALUED)
                || a.iter()
                    .any(|w| w == "--spider" || w.starts_with("--output-document"));
            if named {
                return out;
            }
            let dir = value_of(Some('P'), VALUED, "--directory-prefix");
            for u in urls() {
                out.push(join(dir.clone(), name_of(u, "index.html")));
            }
        }
        "curl" => {
            // Short options of curl that take a value: the rest of a cluster is that value.
            const VALUED: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";
            let remote = cluster_has('O', VALUED)
                || a.iter()
                    .any(|w| matches!(w.as_str(), "--remote-name" | "--remote-name-all"));
            if !remote {
                return out;
            }
            let dir = value_of(None, VALUED, "--output-dir");
            for u in urls() {
                let n = name_of(u, "");
                if !n.is_empty() {
                    out.push(join(dir.clone(), n));
                }
            }
        }
        _ => {}
    }
    out
}

/// Shell builtins and keywords (not programs the capability table lists): a secret given to
/// one is not an unknown program's read.
fn is_builtin(p: &str) -> bool {
    matches!(
        p,
        "" | "read"
            | "mapfile"
            | "readarray"
            | "exec"
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "let"
            | "cd"
            | "pushd"
            | "popd"
            | "[["
            | ":"
            | "hash"
            | "unset"
            | "set"
            | "shopt"
            | "trap"
            | "wait"
            | "shift"
            | "return"
            | "exit"
            | "break"
            | "continue"
            | "alias"
            | "unalias"
            | "ulimit"
            | "umask"
            | "getopts"
            | "jobs"
            | "fg"
            | "bg"
            | "kill"
            | "disown"
            | "do"
            | "done"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "while"
            | "until"
            | "for"
            | "if"
            | "case"
            | "esac"
            | "{"
            | "}"
            | "!"
            | "coproc"
            | "function"
            | "select"
            | "compgen"
            | "complete"
            | "enable"
            | "dirs"
            | "history"
            | "fc"
            | "times"
    )
}

/// Programs that move or transform a file's content into the files they write (a link, a
/// copy, an encrypted or split or archived copy): given a secret, what they write is a
/// secret file.
const CARRIES_INTO_WRITES: crate::strtab::StrTable = crate::str_table![
    "ln", "link", "mv", "cp", "install", "rsync", "openssl", "gpg", "gpg2", "age", "split",
    "csplit", "zip", "7z", "7za", "7zr", "rar", "xxd", "dd", "base64", "base32", "gzip", "bzip2",
    "xz", "zstd", "tar", "bsdtar", "cpio",
];

/// The first secret a command names as a path in its arguments (`-in .env`, `if=KEY`
/// included), located; whatever the program does with it.
fn names_secret(c: &SimpleCommand) -> Option<(String, String)> {
    c.args.iter().take(256).find_map(|w| {
        if w.contains("://") {
            return None;
        }
        let w2 = w.strip_prefix("if=").unwrap_or(w);
        let p = path_of_word(w2);
        let located = c.dir.locate(p).unwrap_or_else(|| p.to_string());
        secret_kind(&located)
            .or_else(|| secret_kind(w2))
            .filter(|k| !matches!(k, SecretKind::Folder | SecretKind::EnvDump))
            .map(|_| (w.clone(), located))
    })
}

/// The first secret path a nested line names (`$(echo ~/.ssh/id_rsa)`, `$(ls ~/.ssh/id_* |
/// head -1)`, `$(realpath F)`, `$(find ~/.aws -name credentials)`): what it prints is that
/// path, whatever the program.
fn nested_names_secret(n: &Analysis) -> Option<String> {
    n.all_commands().into_iter().find_map(|c| {
        names_secret(c).map(|(_, l)| l).or_else(|| {
            // `find DIR -name NAME`: the secret DIR/NAME it prints.
            if c.program != "find" {
                return None;
            }
            let root = c.args.first()?;
            let i = c.args.iter().position(|a| a == "-name" || a == "-iname")?;
            let name = c.args.get(i + 1)?;
            let joined = format!("{}/{}", root.trim_end_matches('/'), name);
            secret_kind(&joined)
                .or_else(|| secret_kind(root).filter(|k| *k != SecretKind::Folder))
                .filter(|k| !matches!(k, SecretKind::Folder | SecretKind::EnvDump))
                .map(|_| joined)
        })
    })
}

/// `a=(.env); curl -d @"${a[0]}" …`, `n=K; K=.env; curl -d @${!n} …`: a variable set to a
/// secret's path (an array element, a value reached indirectly) that a network command
/// later uses where the analysis could not substitute it.
fn secret_variable_egress(a: &Analysis) -> Option<super::SecretFlow> {
    let mut names: Vec<(String, String)> = Vec::new();
    for c in a.all_commands() {
        let assigned = c
            .env
            .iter()
            .filter(|_| {
                c.program.is_empty()
                    || matches!(
                        c.program.as_str(),
                        "export" | "declare" | "local" | "typeset"
                    )
            })
            .map(|(n, v)| (n.clone(), v.clone()))
            .chain(c.args.iter().filter_map(|w| {
                w.split_once('=')
                    .map(|(n, v)| (n.to_string(), v.to_string()))
            }));
        for (name, v) in assigned.take(64) {
            let w = format!("{name}={v}");
            let name = name.trim_end_matches('+');
            if name.is_empty()
                || !name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            {
                continue;
            }
            let v = v.trim_start_matches('(').trim_end_matches(')');
            let secret = v.split_whitespace().any(|x| {
                secret_kind(x.trim_matches(['"', '\'']))
                    .is_some_and(|k| !matches!(k, SecretKind::Folder | SecretKind::EnvDump))
            });
            if secret {
                names.push((name.to_string(), w));
            }
        }
        if names.is_empty() || !c.is_network() {
            continue;
        }
        let uses = |arg: &str| {
            arg.contains("${!")
                || names.iter().any(|(n, _)| {
                    arg.contains(&format!("${{{n}["))
                        || arg.contains(&format!("${{{n}}}"))
                        || arg.split('$').skip(1).any(|rest| {
                            rest.starts_with(n.as_str())
                                && !rest[n.len()..]
                                    .starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_')
                        })
                })
        };
        if c.args.iter().any(|x| uses(x)) {
            return names.first().map(|(_, w)| super::SecretFlow {
                word: w.clone(),
                file: true,
            });
        }
    }
    None
}

/// git carrying a secret to a remote within the line: a remote URL built from a secret
/// (`git remote add x "https://h/$(base64 .env)"`, `set-url`, `git config remote.x.url …`)
/// or a secret staged (`git add -f .env`), then a git command that reaches the network
/// (`git remote update`, `git fetch`, `git push`).
fn git_carries_secret(
    a: &Analysis,
    nested_secret: &[(usize, usize, super::SecretFlow)],
) -> Option<super::SecretFlow> {
    let mut carried: Option<super::SecretFlow> = None;
    for (pi, p) in a.pipelines.iter().enumerate() {
        for (ci, c) in p.iter().enumerate() {
            if c.program != "git" {
                continue;
            }
            if carried.is_some() && c.is_network() {
                return carried;
            }
            let sub = c.git_sub().unwrap_or("");
            let rest = c.git_args();
            let action = rest
                .iter()
                .find(|x| !x.starts_with('-'))
                .map(String::as_str);
            let sets_url = (sub == "remote" && matches!(action, Some("add" | "set-url")))
                || (sub == "config"
                    && rest
                        .iter()
                        .any(|x| x.starts_with("remote.") || x.starts_with("url.")));
            if sets_url {
                if let Some((_, _, s)) = nested_secret.iter().find(|(x, y, _)| *x == pi && *y == ci)
                {
                    carried.get_or_insert(s.clone());
                }
            }
            if sub == "add"
                || sub == "stage"
                || (sub == "commit" && rest.iter().any(|x| !x.starts_with('-')))
            {
                if let Some((w, _)) = names_secret(c) {
                    carried.get_or_insert(super::SecretFlow {
                        word: w,
                        file: true,
                    });
                }
            }
        }
    }
    None
}

/// True when a command shows what it reads (a program the table knows to print, copy or
/// send, not a wrapper, build tool or a program that only uses a key).
fn shows(c: &SimpleCommand) -> bool {
    !USES_NOT_READS.contains(c.program.as_str())
        && crate::shell::capabilities::lookup(&c.program).is_some_and(|k| {
            !matches!(
                k.does,
                crate::shell::capabilities::Does::BuildTest
                    | crate::shell::capabilities::Does::Wraps
            )
        })
}

/// `find SECRET_DIR … -exec cat {} +` (also `fd -x`): the secret folder's files read by the
/// command it runs on each name, when that command shows them.
fn listed_secret(
    c: &SimpleCommand,
    nested: &[(usize, usize, Analysis)],
    pi: usize,
    ci: usize,
) -> Option<(String, String, SecretKind)> {
    if !matches!(c.program.as_str(), "find" | "fd" | "fdfind") {
        return None;
    }
    let (w, path) = names_secret(c)?;
    let kind = secret_kind(&path).or_else(|| secret_kind(&w))?;
    let shown = nested
        .iter()
        .filter(|(a, b, _)| *a == pi && *b == ci)
        .flat_map(|(_, _, n)| n.all_commands())
        .any(|x| x.args.iter().any(|a| a.contains("{}")) && shows(x));
    shown.then_some((w, path, kind))
}
