//! The program lists the parser still reads directly. Every other fact about a program
//! (read-only, writes, network, downloads, runs code, wraps a command) is in the capability
//! table (`capabilities`); a unit test there holds these lists equal to the table's.

/// Shells whose here-document body is a script (the table's `Stdin::Shell` entries).
pub(super) const SHELLS: crate::strtab::StrTable = crate::str_table![
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "csh", "tcsh", "mksh", "yash", "posh",
];

/// Programs that run their standard input as shell commands later or elsewhere: `at`/`batch`
/// (a job), `crontab -` (a schedule whose lines end in commands). What they are fed is
/// analysed like a shell's script (the table's `Stdin::Scheduled` entries).
pub(super) const STDIN_SCRIPTS: &[&str] = &["at", "batch", "crontab"];
