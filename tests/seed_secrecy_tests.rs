//! What a contained bot must never learn: the match's seed (with its own copy of the open-source
//! referee it would know every deal), its partner's hand through memory both can reach, or a
//! file the referee inherited. One cheat each (`cheat_learns_the_seed.py`,
//! `cheat_shares_memory.py`), each with a `--no-sandbox` control that shows the cheat working;
//! and a cheat that searches the seeds a user types (`cheat_seed_search`, in Rust: a million
//! candidates in seconds) from its `bot_seed` or its own hand, with `--public-seed` as control.

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

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

/// The seed-searching cheat, built with the workspace (`crates/seed-search`).
fn searcher() -> std::path::PathBuf {
    workspace_binary("cheat_seed_search", "allfives-seed-search")
}

/// A seed a user would type: the cheat tries every seed below 1,000,000.
const TYPED: &str = "4242";

/// The search's clock: a million deals take seconds, several on a loaded machine.
const SEARCH_MS: &str = "120000";

/// The cheat's command, searching from `clue` (`bot-seed` or `hand`).
fn search_command(sb: &Sandbox, clue: &str) -> String {
    format!(
        "cheat={} {clue} {}",
        quote(&searcher().display().to_string()),
        sb.token()
    )
}

/// `allfives COMMAND BOTS --seed TYPED`, games to 60 with the search's clock, and `options`.
fn typed_run(command: &str, bots: &[String], options: &[&str]) -> Vec<String> {
    let mut args = vec![command.to_string()];
    args.extend(bots.iter().cloned());
    let typed = ["--seed", TYPED, "--target", "60", "--move-ms", SEARCH_MS];
    args.extend(typed.iter().chain(options).map(|o| o.to_string()));
    args
}

/// Each seat's first hand in `log`, as the cheat writes them (tiles sorted).
fn first_hands(log: &Path) -> Vec<String> {
    let text = fs::read_to_string(log).expect("a log");
    let start: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .find(|l| l["type"] == "hand_start")
        .expect("a first hand");
    let hands = start["deal"]["hands"].as_array().expect("hands");
    hands
        .iter()
        .map(|hand| {
            let mut tiles: Vec<String> = hand
                .as_array()
                .expect("tiles")
                .iter()
                .map(|t| t.to_string())
                .collect();
            tiles.sort();
            format!("[{}]", tiles.join(","))
        })
        .collect()
}

/// Whether the cheat named every seat's first hand in `log` from one seed it found (its own is
/// no secret, so this is knowing the others'). One seed's: in a tournament each arrangement's
/// process searches, and two chance fits (each of its own process's hand) together name every
/// seat's hand without either knowing another's.
fn knows_the_deal(stderr: &str, log: &Path) -> bool {
    let hands = first_hands(log);
    stderr.split("LEAK seed ").skip(1).any(|found| {
        hands
            .iter()
            .enumerate()
            .all(|(seat, hand)| found.contains(&format!("LEAK seat {seat}: {hand}")))
    })
}

/// Asserts that the search ran over every candidate and learned nothing: no typed seed fits,
/// and a seed that dealt the cheat's hand by chance (a hand is one of 6.9 million) deals the
/// others other tiles.
fn found_nothing(stderr: &str, log: &Path) {
    assert!(stderr.contains("TRIED 2000000 seeds"), "{stderr}");
    assert!(!stderr.contains(&format!("(typed {TYPED})")), "{stderr}");
    assert!(!knows_the_deal(stderr, log), "the search worked: {stderr}");
}

/// Asserts that the search found the typed seed and every seat's hand in `log`.
fn found_the_deal(stderr: &str, log: &Path) {
    assert!(
        stderr.contains(&format!("(typed {TYPED})")),
        "the search failed: {stderr}"
    );
    assert!(knows_the_deal(stderr, log), "{stderr}");
}

/// One game of the cheat (seat 0) against a fair bot, `--seed TYPED` with `options`; the
/// cheat's stderr and the game's log.
fn searched_match(clue: &str, options: &[&str]) -> (String, std::path::PathBuf, Sandbox) {
    let sb = Sandbox::new();
    let logs = sb.path("logs");
    let bots = [search_command(&sb, clue), fair(&sb)];
    let dir = logs.display().to_string();
    let args = typed_run("match", &bots, &[&["--log-dir", &dir], options].concat());
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{args:?}: {}{}", ran.stdout, ran.stderr);
    sb.assert_no_bot_left();
    let stderr = fs::read_to_string(logs.join("cheat.stderr")).expect("the cheat's stderr");
    (stderr, logs.join("game-1.jsonl"), sb)
}

#[test]
fn a_typed_seed_is_not_found_from_the_bot_seed() {
    let (stderr, log, _sb) = searched_match("bot-seed", &[]);
    found_nothing(&stderr, &log);
}

#[test]
fn a_public_seed_is_found_from_the_bot_seed() {
    let (stderr, log, _sb) = searched_match("bot-seed", &["--public-seed"]);
    found_the_deal(&stderr, &log);
}

#[test]
fn a_typed_seed_is_not_found_from_the_bots_own_hand() {
    let (stderr, log, _sb) = searched_match("hand", &[]);
    found_nothing(&stderr, &log);
}

#[test]
fn a_public_seed_is_found_from_the_bots_own_hand() {
    let (stderr, log, _sb) = searched_match("hand", &["--public-seed"]);
    found_the_deal(&stderr, &log);
}

/// A one-deal tournament of the cheat and a fair bot, `--seed TYPED` with `options`, one game
/// at a time; what the cheat wrote on stderr and the first game's log.
fn searched_tournament(clue: &str, options: &[&str]) -> (String, std::path::PathBuf, Sandbox) {
    let sb = Sandbox::new();
    let out = sb.path("out");
    let bots = [search_command(&sb, clue), fair(&sb)];
    let dir = out.display().to_string();
    let place = ["--deals", "1", "-j", "1", "--out", &dir, "--quiet"];
    let args = typed_run("tournament", &bots, &[&place[..], options].concat());
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{args:?}: {}{}", ran.stdout, ran.stderr);
    sb.assert_no_bot_left();
    let mut stderr = String::new();
    for entry in fs::read_dir(out.join("stderr"))
        .expect("stderr files")
        .flatten()
    {
        if entry.file_name().to_string_lossy().starts_with("cheat") {
            stderr.push_str(&fs::read_to_string(entry.path()).expect("a stderr file"));
        }
    }
    // One deal: every game's first hand is the same.
    let log = fs::read_dir(out.join("logs"))
        .expect("logs")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a game's log");
    (stderr, log, sb)
}

#[test]
fn a_tournaments_typed_seed_is_not_found() {
    for clue in ["bot-seed", "hand"] {
        let (stderr, log, _sb) = searched_tournament(clue, &[]);
        found_nothing(&stderr, &log);
    }
}

#[test]
fn a_tournaments_public_seed_is_found() {
    let (stderr, log, _sb) = searched_tournament("bot-seed", &["--public-seed"]);
    found_the_deal(&stderr, &log);
    let (stderr, log, _sb) = searched_tournament("hand", &["--public-seed"]);
    found_the_deal(&stderr, &log);
}

/// The first position of a game played with `options` posed to the cheat by `replay --ask`;
/// what the referee printed (the asked bot's stderr among it) and the log.
fn searched_replay(options: &[&str]) -> (String, std::path::PathBuf, Sandbox) {
    let sb = Sandbox::new();
    let log = sb.path("game.jsonl");
    let bots = ["builtin:greedy", "builtin:random"].map(String::from);
    let file = log.display().to_string();
    let args = typed_run("match", &bots, &[&["--log", &file], options].concat());
    let played = allfives(&args);
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    let command = format!(
        "{} bot-seed {}",
        quote(&searcher().display().to_string()),
        sb.token()
    );
    let shown = log.display().to_string();
    let ran = allfives(&["replay", &shown, "--turn", "1", "--ask", &command]);
    assert_eq!(ran.code, Some(0), "{}{}", ran.stdout, ran.stderr);
    sb.assert_no_bot_left();
    (format!("{}{}", ran.stdout, ran.stderr), log, sb)
}

#[test]
fn replay_ask_gives_no_typed_seed_away() {
    let (printed, log, _sb) = searched_replay(&[]);
    found_nothing(&printed, &log);
}

#[test]
fn replay_ask_gives_a_public_seed_away() {
    let (printed, log, _sb) = searched_replay(&["--public-seed"]);
    found_the_deal(&printed, &log);
}

/// The master seed a `match --json` report names, and the first game's seed.
fn seeds_of(args: &[String]) -> (u64, u64, Value) {
    let ran = allfives(args);
    assert_eq!(ran.code, Some(0), "{args:?}: {}", ran.stderr);
    let report = ran.json();
    let master = report["seed"].as_u64().expect("a seed");
    let first = report["games"][0]["seed"].as_u64().expect("a game seed");
    (master, first, report)
}

/// A match of two builtins, one game to 60, its report in JSON, with `extra`.
fn two_builtins(extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "match",
        "builtin:greedy",
        "builtin:random",
        "--json",
        "--target=60",
    ];
    args.extend(extra);
    args.into_iter().map(String::from).collect()
}

#[test]
fn a_typed_seed_alone_deals_other_games_each_run() {
    let sb = Sandbox::new();
    let logs = |n: &str| sb.path(n).display().to_string();
    let (a, b) = (logs("a"), logs("b"));
    let args = |dir: &str| two_builtins(&["--seed", "7", "--log-dir", dir]);
    let (first, _, report) = seeds_of(&args(&a));
    let (second, _, _) = seeds_of(&args(&b));
    assert_ne!(first, 7);
    assert_ne!(first, second);
    assert!(report.get("public_seed").is_none(), "{report}");
}

#[test]
fn a_seed_and_its_key_file_deal_the_same_games_every_run() {
    let sb = Sandbox::new();
    let key = sb.path("keys/deal-key");
    fs::create_dir(sb.path("keys")).expect("a folder");
    let (k, a, b) = (
        key.display().to_string(),
        sb.path("a").display().to_string(),
        sb.path("b").display().to_string(),
    );
    let args = |dir: &str| two_builtins(&["--seed", "7", "--deal-key", &k, "--log-dir", dir]);
    let (first, game, _) = seeds_of(&args(&a));
    // The key was made once, for this user only, and read again.
    let mode = fs::metadata(&key).expect("a key file").permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let (second, again, _) = seeds_of(&args(&b));
    assert_eq!((first, game), (second, again));
    assert_ne!(first, 7);
    // The printed master, taken as it is, deals the same games again without the key.
    let m = first.to_string();
    let c = sb.path("c").display().to_string();
    let replayed = two_builtins(&["--seed", &m, "--public-seed", "--log-dir", &c]);
    let (master, same, report) = seeds_of(&replayed);
    assert_eq!((master, same), (first, game));
    assert_eq!(report["public_seed"], true);
    let header = fs::read_to_string(sb.path("c/game-1.jsonl")).expect("a log");
    assert!(
        header
            .lines()
            .next()
            .expect("a header")
            .contains("\"public_seed\":true")
    );
}

#[test]
fn a_public_seed_is_the_master_and_is_said_to_be() {
    let sb = Sandbox::new();
    let dir = sb.path("logs").display().to_string();
    let mut args = vec![
        "match",
        "builtin:greedy",
        "builtin:random",
        "--target",
        "60",
    ];
    args.extend(["--seed", "7", "--public-seed", "--log-dir", &dir]);
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout.contains("seed 7 (public: --public-seed)"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("public seed 7: these games were dealt by public formulas")
    );
    assert!(
        ran.stderr
            .contains("a bot that guesses it can compute every hand")
    );
}

#[test]
fn a_key_file_that_holds_no_key_is_refused() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key");
    fs::write(&key, "not a key\n").expect("a file");
    let k = key.display().to_string();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "7",
        "--deal-key",
        &k,
    ]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is not a deal key (64 hex digits)"),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
}

#[test]
fn shards_without_a_shared_key_are_refused() {
    let sb = Sandbox::new();
    let out = sb.path("t").display().to_string();
    let mut args = vec![
        "tournament",
        "builtin:greedy",
        "builtin:random",
        "--out",
        &out,
    ];
    args.extend(["--shard", "1/2", "--seed", "7"]);
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("--deal-key FILE"), "{}", ran.stderr);
    assert!(!sb.path("t").join("tournament.json").exists());
}

#[test]
fn a_tournament_keeps_its_typed_seed_and_resumes_on_it() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let dir = out.display().to_string();
    let args = [
        "tournament",
        "builtin:greedy",
        "builtin:random",
        "--deals",
        "1",
    ];
    let ran = allfives(&[&args[..], &["--seed", "99", "--out", &dir, "--quiet"]].concat());
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let definition: Value =
        serde_json::from_str(&fs::read_to_string(out.join("tournament.json")).expect("stored"))
            .expect("JSON");
    assert_eq!(definition["typed_seed"], 99);
    assert_ne!(definition["seed"], 99);
    assert!(definition.get("public_seed").is_none());
    let more = |seed: &str| {
        allfives(&[
            "tournament",
            "--out",
            &dir,
            "--resume",
            "--deals",
            "2",
            "--seed",
            seed,
            "--quiet",
        ])
    };
    assert_eq!(more("98").code, Some(2));
    let resumed = more("99");
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let verified = allfives(&["standings", &dir, "--verify"]);
    assert_eq!(verified.code, Some(0), "{}", verified.stderr);
}

/// A deal key kept in the folder a bot plays from: the bot reads the folder, never the key.
fn key_beside_the_bot(options: &[&str]) -> String {
    let sb = Sandbox::new();
    let here = folder_to_play_from(&sb);
    let key = here.join("deal.key");
    let cheat = format!(
        "a={}",
        sb.fixture("cheat_learns_the_seed", &["file", &hex(&key)])
    );
    let key_option = key.display().to_string();
    let mut all = vec!["--deal-key", &key_option];
    all.extend(options);
    let stderr = play_from(&here, &[cheat, fair(&sb)], &all, |_| {});
    assert!(key.exists(), "the key file was made");
    stderr[0].clone()
}

#[test]
fn a_deal_key_in_a_bots_folder_is_hidden_from_it() {
    assert_learned_nothing(&key_beside_the_bot(&[]));
}

#[test]
fn without_the_sandbox_a_deal_key_beside_the_bot_is_read() {
    let stderr = key_beside_the_bot(&["--no-sandbox"]);
    assert!(stderr.contains("LEAK"), "{stderr}");
}
