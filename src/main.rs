//! The `allfives` command line.

fn main() {
    println!("allfives {}", env!("CARGO_PKG_VERSION"));
}
