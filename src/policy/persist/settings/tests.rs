use super::*;

fn cmd(line: &str) -> Option<Effect> {
    let a = crate::shell::analyze(line);
    a.all_commands()
        .into_iter()
        .filter_map(command)
        .map(|(e, _)| e)
        .max()
}

#[test]
fn settings_commands_by_tool() {
    use Effect::*;
    for (line, want) in [
        // pip
        (
            "pip config set global.index-url https://pypi.tools-cdn.example/simple",
            Some(Source),
        ),
        (
            "pip3 config --user set global.extra-index-url https://x.example/simple",
            Some(Source),
        ),
        (
            "python3 -m pip config set install.trusted-host x.example",
            Some(Source),
        ),
        (
            "pip config set global.find-links https://x.example/wheels",
            Some(Source),
        ),
        ("pip config set global.timeout 60", None),
        (
            "pip config set global.index-url https://pypi.org/simple",
            None,
        ),
        ("pip config set global.some-new-key 1", Some(Unknown)),
        ("pip config list", None),
        ("pip config get global.index-url", None),
        ("pip config unset global.index-url", None),
        ("pip config edit --global", Some(Unknown)),
        ("pip install requests", None),
        // npm and pnpm
        (
            "npm config set script-shell ./tools/netshell.sh",
            Some(Runs),
        ),
        ("npm config set node-options='--require ./x.js'", Some(Runs)),
        ("npm set git /tmp/git", Some(Runs)),
        (
            "npm config set registry https://registry.tools-cdn.example/",
            Some(Source),
        ),
        (
            "npm config set @corp:registry https://npm.tools-cdn.example/",
            Some(Source),
        ),
        ("npm config set strict-ssl false", Some(Source)),
        (
            "npm --location=global config set registry=https://r.example/",
            Some(Source),
        ),
        ("npm config set registry https://registry.npmjs.org/", None),
        ("npm config set init-author-name Ada save-exact true", None),
        ("npm config set prefix ~/.npm-global", None),
        ("npm config set foo bar", Some(Unknown)),
        (
            "npm config set //registry.npmjs.org/:_authToken=abc",
            Some(Unknown),
        ),
        ("npm config get registry", None),
        ("npm config list", None),
        ("npm config delete registry", None),
        ("pnpm config set shell-emulator true", Some(Runs)),
        ("pnpm config set registry https://r.example/", Some(Source)),
        // yarn
        ("yarn config set yarnPath ./.yarn/evil.cjs", Some(Runs)),
        (
            "yarn config set npmRegistryServer https://r.example",
            Some(Source),
        ),
        (
            "yarn config set registry https://r.example -g",
            Some(Source),
        ),
        ("yarn config set enableTelemetry 0", None),
        ("yarn config get registry", None),
        // gem and bundler
        (
            "gem sources --add https://gems.tools-cdn.example/",
            Some(Source),
        ),
        (
            "gem sources -a https://gems.tools-cdn.example/",
            Some(Source),
        ),
        ("gem sources --add https://rubygems.org/", None),
        ("gem sources --list", None),
        ("gem sources --remove https://x.example/", None),
        (
            "bundle config set mirror.https://rubygems.org https://m.example",
            Some(Source),
        ),
        ("bundle config set --local path vendor/bundle", None),
        ("bundle config get path", None),
        // conda
        ("conda config --add channels evilchan", Some(Source)),
        (
            "conda config --prepend channels https://conda.tools-cdn.example",
            Some(Source),
        ),
        (
            "conda config --set channel_alias https://c.example",
            Some(Source),
        ),
        ("conda config --add channels conda-forge", None),
        ("conda config --set auto_activate_base false", None),
        ("conda config --show channels", None),
        ("conda config --set some_new_thing 1", Some(Unknown)),
        // poetry
        (
            "poetry source add --priority primary corp https://pypi.tools-cdn.example/simple",
            Some(Source),
        ),
        (
            "poetry config repositories.corp https://r.example",
            Some(Source),
        ),
        ("poetry config certificates.corp.cert false", Some(Source)),
        ("poetry config virtualenvs.in-project true", None),
        ("poetry config --list", None),
        ("poetry source show", None),
        // go
        (
            "go env -w GOPROXY=https://goproxy.tools-cdn.example",
            Some(Source),
        ),
        ("go env -w GOFLAGS=-toolexec=/tmp/x", Some(Runs)),
        ("go env -w GOSUMDB=off", Some(Source)),
        ("go env -w GOPROXY=https://proxy.golang.org,direct", None),
        ("go env -w GO111MODULE=on", None),
        ("go env GOPROXY", None),
        // apt
        ("sudo add-apt-repository ppa:x/y", Some(Source)),
    ] {
        assert_eq!(cmd(line), want, "{line}");
    }
}

#[test]
fn settings_files_by_text() {
    use Effect::*;
    let f = |p: &str, t: &str| file(p, Some(t), "", "");
    assert_eq!(
        f("/h/.npmrc", "registry=https://r.example/\n"),
        Some(Source)
    );
    assert_eq!(f("/h/.npmrc", "script-shell=./x.sh\n"), Some(Runs));
    assert_eq!(
        f("/h/.npmrc", "@corp:registry=https://r.example/\n"),
        Some(Source)
    );
    assert_eq!(f("/h/.npmrc", "save-exact=true\n"), None);
    assert_eq!(
        f("/h/.npmrc", "//r.example/:_authToken=${T}\n"),
        Some(Unknown)
    );
    assert_eq!(
        f("/h/.yarnrc", "registry \"https://r.example\"\n"),
        Some(Source)
    );
    assert_eq!(
        f(
            "/h/.yarnrc.yml",
            "npmScopes:\n  corp:\n    npmRegistryServer: \"https://r.example\"\n"
        ),
        Some(Source)
    );
    assert_eq!(
        f(
            "/h/.config/pip/pip.conf",
            "[global]\nindex-url = https://r.example/simple\n"
        ),
        Some(Source)
    );
    assert_eq!(
        f("/h/.config/pip/pip.conf", "[global]\ntimeout = 60\n"),
        None
    );
    assert_eq!(
        f(
            "/h/.pypirc",
            "[distutils]\nindex-servers = corp\n[corp]\nrepository = https://r.example\n"
        ),
        Some(Source)
    );
    assert_eq!(f("/h/.condarc", "channels:\n  - evil\n"), Some(Source));
    assert_eq!(f("/h/.condarc", "  - evil\n"), Some(Unknown));
    assert_eq!(
        f(
            "/h/.config/pypoetry/config.toml",
            "[repositories.corp]\nurl = \"https://r.example\"\n"
        ),
        Some(Source)
    );
    assert_eq!(
        f(
            "/h/.docker/config.json",
            "{\n  \"credsStore\": \"evil\"\n}\n"
        ),
        Some(Runs)
    );
    assert_eq!(
        f("/h/.config/go/env", "GOPROXY=https://g.example\n"),
        Some(Source)
    );
    assert_eq!(
        f("/h/proj/README.md", "registry=https://r.example/\n"),
        None
    );
    // An unchanged line (an Edit's old text) is not a change.
    assert_eq!(
        file(
            "/h/.npmrc",
            Some("registry=https://r.example/\nsave-exact=true\n"),
            "registry=https://r.example/",
            ""
        ),
        None
    );
    // A shell write: by the command line's words, unknown when none is a key.
    assert_eq!(
        file(
            "/h/.npmrc",
            None,
            "",
            "echo 'registry=https://r.example/' >> ~/.npmrc"
        ),
        Some(Source)
    );
    assert_eq!(
        file("/h/.npmrc", None, "", "cp /tmp/dl/npmrc ~/.npmrc"),
        Some(Unknown)
    );
}
