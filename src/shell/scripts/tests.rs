use super::*;

#[test]
fn sed_and_awk_programs() {
    let p = sed_program("s/a/b/g;/x/p;1d;$!N;y/abc/xyz/;a\\\n text\n:l\nb l");
    assert_eq!(p, SedProgram::default());
    assert!(sed_program("1e echo hi").executes);
    assert!(sed_program("s/x/date/e").executes);
    assert!(!sed_program("s/e/w/g").executes);
    assert_eq!(sed_program("s|a|b|w out").writes, vec!["out"]);
    assert_eq!(sed_program("/a/,/b/ w out ; p").writes, vec!["out ; p"]);
    assert!(sed_program("w /dev/stdout").writes.is_empty());
    assert!(awk_program("{print $1}") == AwkProgram::default());
    assert!(awk_program("$3 > 10 {print $1, \"a > b\"}") == AwkProgram::default());
    assert!(awk_program("{ if ($1 > 2) print ($1 > 3) }") == AwkProgram::default());
    assert!(awk_program("BEGIN{system(\"id\")}").executes);
    assert!(awk_program("BEGIN{system (\"id\")}").executes);
    assert!(awk_program("{print | \"sh\"}").executes);
    assert!(awk_program("BEGIN{\"id\" | getline x}").executes);
    assert!(awk_program("BEGIN{print \"x\" |& \"cat\"}").executes);
    assert!(!awk_program("$1 == \"a\" || $2 {print}").executes);
    assert!(awk_program("{print > $2}").unknown_write);
    assert!(!awk_program("{getline line < \"f\"; print line}").executes);
}
