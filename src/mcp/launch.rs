//! The launch identity of a server: its default catalog name, the package a package runner
//! launches, the launch pin text, and whether the package floats (names no fixed version).

/// A server name from its command: the package of `npx`/`uvx`/`pipx run`/`bunx`-style
/// launchers (without scope or version), else the command's file name.
pub fn default_name(command: &[String]) -> String {
    let pkg = package_arg(command).unwrap_or_else(|| command.first().cloned().unwrap_or_default());
    let base = pkg.rsplit('/').next().unwrap_or(&pkg).to_string();
    let base = match base.rfind('@') {
        Some(i) if i > 0 => base[..i].to_string(),
        _ => base,
    };
    if base.is_empty() {
        "server".into()
    } else {
        base
    }
}

/// The package argument of a package-runner launch (`npx -y pkg@1.2`, `uvx pkg==1.2`,
/// `pipx run pkg`, `bunx`, `pnpm dlx`, `yarn dlx`), if the command is one.
pub fn package_arg(command: &[String]) -> Option<String> {
    let exe = command.first()?;
    let exe = exe.rsplit(['/', '\\']).next().unwrap_or(exe);
    let exe = exe.strip_suffix(".cmd").unwrap_or(exe);
    let rest: &[String] = match exe {
        "npx" | "bunx" | "uvx" => &command[1..],
        "pipx" | "pnpm" | "yarn" | "uv" | "bun" | "npm" => {
            let i = command
                .iter()
                .position(|a| matches!(a.as_str(), "run" | "dlx" | "exec" | "x" | "tool"))?;
            &command[i + 1..]
        }
        _ => return None,
    };
    let mut skip_value = false;
    for a in rest {
        if skip_value {
            skip_value = false;
            continue;
        }
        if a == "--" {
            continue;
        }
        if a.starts_with('-') {
            // Options that take a value, for the common runners.
            skip_value = matches!(
                a.as_str(),
                "-p" | "--package" | "--from" | "--with" | "--python" | "-c" | "--call"
            );
            continue;
        }
        if a == "run" {
            continue;
        }
        return Some(a.clone());
    }
    None
}

/// The launch pin text: the command and arguments as a JSON array (the proxy appends
/// `serverInfo=NAME@VERSION` from the server's `initialize` result). The package version, when
/// the command names one (`pkg@1.0.15`, `pkg==1.2`), is part of the arguments; a package
/// without a version floats, which [`floating_package`] reports, and then only the reported
/// server version moves the pin.
pub fn launch_pin(command: &[String]) -> String {
    serde_json::to_string(command).unwrap_or_default()
}

/// The package name when a package-runner launch names no version (`npx -y pkg`), so a new
/// release would run without changing the pin.
pub fn floating_package(command: &[String]) -> Option<String> {
    let p = package_arg(command)?;
    let unversioned = match p.strip_prefix('@') {
        Some(rest) => !rest.contains('@'),
        None => !p.contains('@') && !p.contains("==") && !p.contains(".tgz"),
    };
    let latest = p.ends_with("@latest");
    (unversioned || latest).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_pins() {
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            default_name(&c(&[
                "npx",
                "-y",
                "@modelcontextprotocol/server-filesystem@1.0",
                "/tmp"
            ])),
            "server-filesystem"
        );
        assert_eq!(default_name(&c(&["/usr/bin/python3", "srv.py"])), "python3");
        assert_eq!(
            floating_package(&c(&["npx", "-y", "postmark-mcp"])).as_deref(),
            Some("postmark-mcp")
        );
        assert_eq!(
            floating_package(&c(&["npx", "-y", "postmark-mcp@1.0.16"])),
            None
        );
        assert_eq!(
            floating_package(&c(&["npx", "@scope/pkg@latest"])).as_deref(),
            Some("@scope/pkg@latest")
        );
        assert_eq!(floating_package(&c(&["uvx", "mcp-server-git==1.2"])), None);
        assert_eq!(floating_package(&c(&["node", "x.js"])), None);
    }
}
