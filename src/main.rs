// TEMP wiring by the detection branch so `intentshield scan` can be tried; the lead replaces this.
fn main() {
    let cmd = clap::Command::new("intentshield")
        .subcommand_required(true)
        .subcommand(intentshield::commands::scan::command());
    let m = cmd.get_matches();
    let code = match m.subcommand() {
        Some(("scan", sm)) => intentshield::commands::scan::run(sm),
        _ => 2,
    };
    std::process::exit(code);
}
