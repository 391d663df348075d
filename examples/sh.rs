fn main() {
    for c in std::env::args().skip(1) {
        let a = intentshield::shell::analyze(&c);
        println!("{c}\n{:#?}\nwrites={:?}", a, a.writes());
    }
}
