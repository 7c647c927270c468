//! The starter kits (sample_bots/java, sample_bots/cpp), compiled into a temporary folder: each
//! passes `check`, and as shipped plays exactly the moves of builtin:greedy, which shows that it
//! reads the view and writes its moves right. Needs `javac`/`java` (JDK 17+) and `g++` on PATH.

use std::path::Path;
use std::process::Command;

use crate::check_tests::assert_passes;
use crate::harness::{Sandbox, quote, root};
use crate::referee_tests::games_against_random;

/// Runs a compiler; it must succeed.
fn compile(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} cannot run ({e}): install it (see README.md)"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Checks the compiled kit with `check`, then compares its games with builtin:greedy's.
fn assert_kit_works(command: &dyn Fn(&Sandbox) -> String) {
    let sb = Sandbox::new();
    assert_passes(&sb, &command(&sb));
    let kit = games_against_random(command);
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert!(kit == builtin, "the kit does not play like builtin:greedy");
}

fn path(p: &Path) -> String {
    quote(&p.display().to_string())
}

#[test]
fn the_java_starter_kit_works() {
    let build = tempfile::tempdir().expect("a build folder");
    let source = root().join("sample_bots/java/StarterBot.java");
    let out = build.path().display().to_string();
    compile(
        "javac",
        &[
            // No /tmp/hsperfdata_USER left behind by the compiler's JVM.
            "-J-XX:-UsePerfData",
            "-Xlint:all",
            "-Werror",
            "-d",
            &out,
            &source.display().to_string(),
        ],
    );
    let classes = path(build.path());
    assert_kit_works(&|sb| format!("java -cp {classes} StarterBot {}", sb.token()));
}

#[test]
fn the_cpp_starter_kit_works() {
    let build = tempfile::tempdir().expect("a build folder");
    let binary = build.path().join("starter_bot");
    let source = root().join("sample_bots/cpp/starter_bot.cpp");
    compile(
        "g++",
        &[
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-o",
            &binary.display().to_string(),
            &source.display().to_string(),
        ],
    );
    let bot = path(&binary);
    assert_kit_works(&|sb| format!("{bot} {}", sb.token()));
}
