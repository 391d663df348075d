use crate::shell::analyze;
use crate::shell::testing::command;

#[test]
fn read_only_and_network() {
    assert!(analyze("ls -la && git status && cat README.md | head").is_read_only());
    assert!(analyze("rm -rf node_modules && npm ci && npm test")
        .writes()
        .contains(&"node_modules".to_string()));
    assert!(!analyze("git push origin main").is_read_only());
    assert!(analyze("git push origin main").is_network());
    assert!(!analyze("git status").is_network());
    assert!(!analyze("find . -name '*.tmp' -delete").is_read_only());
}

#[test]
fn code_runners_are_not_read_only() {
    for line in [
        "sed '1e id' f",
        "sed 's/x/id/e' f",
        "sed -n 'w out' f",
        "sed -f script.sed f",
        "awk 'BEGIN{system(\"id\")}'",
        "gawk '{print | \"sh\"}' f",
        "awk 'BEGIN{\"id\" | getline}'",
        "awk '{print > \"out\"}' f",
        "awk -f prog.awk f",
        "git -c core.pager=sh log",
        "git -c alias.x='!sh' x",
        "git --config-env=core.pager=X log",
        "git --exec-path=/tmp log",
        "GIT_PAGER='sh -c id' git -p log",
        "PAGER=evil git log",
        "GIT_EXTERNAL_DIFF=x git diff",
        "EDITOR=x git log",
        "LESSOPEN='|id %s' less f",
        "LD_PRELOAD=/tmp/x.so ls",
        "git grep -O foo",
        "git grep --open-files-in-pager=vim foo",
        "git diff --ext-diff",
        "git difftool",
        "rg --pre ./x foo",
        "rg --pre=./x foo",
        "fd -x rm",
        "fd -e rs --exec-batch wc -l",
        "fd . -X cat",
        "make --eval='all:;id'",
        "make -f - all",
        "make -f /dev/stdin",
        "make SHELL=/tmp/x test",
        "tree -o out",
        "sort -o out f",
        "uniq a b",
        "xxd -r a b",
        "yq -i '.a=1' f",
        "find . -fprint0 out",
        "find . -fls out",
        "env -S 'rm x'",
    ] {
        assert!(!analyze(line).is_read_only(), "{line}");
    }
    for line in [
        "sed -n '/x/p' f",
        "sed 's/hello/world/g' f",
        "sed -e 's/a/b/' -e '/c/d' f",
        "sed -E 's/(a|b)+/x/g' f",
        "awk '{print $1}' f",
        "awk -F: '$3 > 1000 {print $1}' /etc/passwd",
        "awk -v n=3 'NR > n {print}' f",
        "git log --oneline",
        "git -C repo status",
        "git --no-pager log -3",
        "git diff HEAD~1",
        "git grep foo",
        "sort f",
        "sort -u -k2 f",
        "uniq f",
        "uniq -c f",
        "xxd f",
        "tree -L 2",
        "rg foo",
        "rg --pretty foo",
        "fd '*.rs'",
        "fd -e rs",
        "make test",
        "make -f Makefile test",
        "echo a b | xargs -n1 echo",
        "LC_ALL=C sort f",
        "find . -name '*.rs'",
        "less README.md",
        "yq '.a' f",
    ] {
        assert!(analyze(line).is_read_only(), "{line}");
    }
    // Assignment prefixes are recorded.
    assert_eq!(
        command("GIT_PAGER=x git log", "git").env,
        vec![("GIT_PAGER".to_string(), "x".to_string())]
    );
    // `fd -x CMD` runs CMD like `find -exec`.
    assert!(analyze("fd -e json -x rm")
        .all_commands()
        .iter()
        .any(|c| c.program == "rm"));
}
