//! Build script: only tells cargo to relink when the hook's code order changes.
//! scripts/link-ordered.sh (the linker in .cargo/config.toml) reads configs/hook-order.txt,
//! which cargo would not otherwise see as an input of the binary.

fn main() {
    println!("cargo:rerun-if-changed=configs/hook-order.txt");
    println!("cargo:rerun-if-changed=scripts/link-ordered.sh");
}
