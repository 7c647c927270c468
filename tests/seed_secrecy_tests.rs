//! What a contained bot must never learn: the match's seed (with its own copy of the open-source
//! referee it would know every deal), its partner's hand through memory both can reach, or a
//! file the referee inherited. One cheat each (`cheat_learns_the_seed.py`,
//! `cheat_shares_memory.py`), each with a `--no-sandbox` control that shows the cheat working.

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use crate::harness::*;

/// A seed no bot can guess: the cheats look for `--seed` and for the log header's seed.
const SEED: &str = "8675309";

/// Plays one game of `bots` from `cwd` (logs in their default place there) with `options`;
/// returns what each bot wrote on stderr.
fn play_from(
    cwd: &Path,
    bots: &[String],
    options: &[&str],
    configure: impl FnOnce(&mut Command),
) -> Vec<String> {
    let mut args = vec!["match".to_string()];
    args.extend(bots.iter().cloned());
    args.extend(["--seed", SEED, "--target", "60"].map(String::from));
    args.extend(options.iter().map(|o| o.to_string()));
    let ran = allfives_with(&args, |c| {
        c.current_dir(cwd);
        configure(c);
    });
    assert_eq!(ran.code, Some(0), "{args:?}: {}{}", ran.stdout, ran.stderr);
    assert!(!ran.stdout.contains("forfeits"), "{}", ran.stdout);
    let logs = cwd.join("allfives-logs/match-1");
    ["a", "b"]
        .iter()
        .map(|name| fs::read_to_string(logs.join(format!("{name}.stderr"))).unwrap_or_default())
        .collect()
}

/// A fresh folder of the sandbox's to start the referee from (its default logs go there).
fn folder_to_play_from(sb: &Sandbox) -> std::path::PathBuf {
    let here = sb.path("here");
    fs::create_dir(&here).expect("a folder to play from");
    here
}

fn cheat(sb: &Sandbox, way: &str) -> String {
    format!("a={}", sb.fixture("cheat_learns_the_seed", &[way]))
}

fn fair(sb: &Sandbox) -> String {
    format!("b={}", sb.fixture("says_its_hand", &[]))
}

fn assert_learned_nothing(stderr: &str) {
    assert!(
        stderr.contains("TRIED"),
        "the cheat was not tried: {stderr}"
    );
    assert!(!stderr.contains("LEAK"), "the cheat worked: {stderr}");
}

/// The cheat against a fair bot, from a folder of the sandbox's; its stderr.
fn seed_cheat(way: &str, options: &[&str], configure: impl FnOnce(&mut Command)) -> String {
    let sb = Sandbox::new();
    let here = folder_to_play_from(&sb);
    let limit = options
        .iter()
        .skip_while(|o| **o != "--bot-processes")
        .nth(1)
        .copied()
        .unwrap_or("0");
    let words: Vec<&str> = match way {
        "forks" => vec![way, limit],
        _ => vec![way],
    };
    let cheat = format!("a={}", sb.fixture("cheat_learns_the_seed", &words));
    let stderr = play_from(&here, &[cheat, fair(&sb)], options, configure);
    sb.assert_no_bot_left();
    stderr[0].clone()
}

#[test]
fn the_log_folders_names_and_contents_give_no_seed_away() {
    let stderr = seed_cheat("folders", &[], |_| {});
    assert_learned_nothing(&stderr);
    // Not even in a folder's name (they were `match-SEED-N`).
    assert!(!stderr.contains(SEED), "{stderr}");
}

#[test]
fn without_the_sandbox_the_log_folder_gives_the_seed_away() {
    let stderr = seed_cheat("folders", &["--no-sandbox"], |_| {});
    assert!(
        stderr.contains("LEAK seed in ./allfives-logs/match-1/game-1.jsonl"),
        "{stderr}"
    );
}

#[test]
fn the_init_a_bot_sees_has_no_command_line_of_the_referees() {
    let stderr = seed_cheat("cmdline", &[], |c| {
        c.env("SECRET", "the referee's environment");
    });
    assert_learned_nothing(&stderr);
    assert!(
        stderr.contains("/proc/1/cmdline says 'allfives-init "),
        "{stderr}"
    );
}

#[test]
fn without_the_sandbox_the_referees_command_line_gives_the_seed_away() {
    let stderr = seed_cheat("cmdline", &["--no-sandbox"], |_| {});
    assert!(stderr.contains(&format!("--seed {SEED}")), "{stderr}");
}

/// The cheat run by a referee started with a secret file open as descriptor 3, as a shell's
/// `3<secret` leaves it.
fn inherited(options: &[&str]) -> String {
    let sb = Sandbox::new();
    let secret = sb.path("secret");
    fs::write(&secret, "SECRET inherited").expect("a secret");
    let file = fs::File::open(&secret).expect("the secret, open");
    let fd = file.as_raw_fd();
    let stderr = {
        let here = folder_to_play_from(&sb);
        let bots = [cheat(&sb, "fds"), fair(&sb)];
        play_from(&here, &bots, options, |c| {
            // SAFETY: dup2 between fork and exec, on descriptors this process owns.
            unsafe {
                // dup2 onto itself would keep the descriptor's close-on-exec flag: clear it.
                c.pre_exec(
                    move || match (libc::dup2(fd, 3), libc::fcntl(3, libc::F_SETFD, 0)) {
                        (3, 0) => Ok(()),
                        _ => Err(std::io::Error::last_os_error()),
                    },
                );
            }
        })
    };
    drop(file);
    sb.assert_no_bot_left();
    stderr[0].clone()
}

#[test]
fn a_descriptor_the_referee_inherited_never_reaches_a_bot() {
    assert_learned_nothing(&inherited(&[]));
}

#[test]
fn without_the_sandbox_an_inherited_descriptor_reaches_the_bot() {
    assert!(inherited(&["--no-sandbox"]).contains("SECRET inherited"));
}

/// Partners that pass a hand through System V shared memory; the reader's stderr.
fn shared_memory(options: &[&str]) -> String {
    let sb = Sandbox::new();
    let here = folder_to_play_from(&sb);
    let bots = [
        format!("a={}", sb.fixture("cheat_shares_memory", &["read"])),
        format!("b={}", sb.fixture("cheat_shares_memory", &["write"])),
    ];
    let stderr = play_from(&here, &bots, options, |_| {});
    sb.assert_no_bot_left();
    stderr[0].clone()
}

#[test]
fn bots_share_no_system_v_memory() {
    assert_learned_nothing(&shared_memory(&[]));
}

#[test]
fn without_the_sandbox_bots_share_system_v_memory() {
    assert!(shared_memory(&["--no-sandbox"]).contains("LEAK the partner's hand"));
}

/// The cheat told to connect to a listening socket in the folder it plays from; its stderr.
fn host_socket(options: &[&str]) -> String {
    let sb = Sandbox::new();
    let here = folder_to_play_from(&sb);
    let path = here.join("host.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).expect("a host socket");
    listener.set_nonblocking(true).expect("non-blocking");
    let hex: String = path
        .display()
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    let greet = std::thread::spawn(move || {
        // Greets whoever connects while the match runs (a non-blocking accept, polled).
        let until = std::time::Instant::now() + HUNG;
        while std::time::Instant::now() < until {
            match listener.accept() {
                Ok((mut s, _)) => {
                    let _ = std::io::Write::write_all(&mut s, b"HOST SECRET");
                    return;
                }
                Err(_) if path_gone(&path) => return,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
    });
    let bots = [
        format!(
            "a={}",
            sb.fixture("cheat_learns_the_seed", &["socket", &hex])
        ),
        fair(&sb),
    ];
    let stderr = play_from(&here, &bots, options, |_| {});
    fs::remove_file(here.join("host.sock")).expect("the socket removed");
    greet.join().expect("the greeter");
    sb.assert_no_bot_left();
    stderr[0].clone()
}

fn path_gone(path: &Path) -> bool {
    !path.exists()
}

#[test]
fn a_bot_connects_to_no_socket_of_the_host() {
    assert_learned_nothing(&host_socket(&[]));
}

#[test]
fn without_the_sandbox_a_bot_connects_to_a_socket_of_the_host() {
    assert!(host_socket(&["--no-sandbox"]).contains("LEAK a host socket: 'HOST SECRET'"));
}

fn root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_bot_of_a_referee_run_as_root_reads_nothing_only_root_may() {
    assert_learned_nothing(&seed_cheat("shadow", &[], |_| {}));
}

#[test]
fn without_the_sandbox_a_bot_of_root_reads_etc_shadow() {
    if root() {
        assert!(seed_cheat("shadow", &["--no-sandbox"], |_| {}).contains("LEAK /etc/shadow"));
    }
}

#[test]
fn a_bot_of_a_referee_run_as_root_cannot_escape_its_process_limit() {
    // Forking takes a while on a loaded machine: a generous clock.
    let stderr = seed_cheat(
        "forks",
        &["--bot-processes", "16", "--move-ms", "20000"],
        |_| {},
    );
    // The limit must bind: 16 processes at once, the bot itself included.
    assert_learned_nothing(&stderr);
}

#[test]
fn without_the_sandbox_root_escapes_the_process_limit() {
    if root() {
        let options = [
            "--no-sandbox",
            "--bot-processes",
            "16",
            "--move-ms",
            "20000",
        ];
        let stderr = seed_cheat("forks", &options, |_| {});
        assert!(stderr.contains("LEAK processes past the limit"), "{stderr}");
    }
}

/// Two bots from one folder, each leaving notes wherever it can write; what both saw.
fn notes(options: &[&str]) -> String {
    let sb = Sandbox::new();
    let here = folder_to_play_from(&sb);
    let bots =
        ["a", "b"].map(|n| format!("{n}={}", sb.fixture("cheat_learns_the_seed", &["drops"])));
    let stderr = play_from(&here, &bots, options, |_| {});
    sb.assert_no_bot_left();
    stderr.concat()
}

#[test]
fn two_bots_from_one_folder_share_no_place_to_write() {
    assert_learned_nothing(&notes(&[]));
}

#[test]
fn without_the_sandbox_two_bots_read_each_others_notes() {
    assert!(notes(&["--no-sandbox"]).contains("LEAK a note in /tmp"));
}
