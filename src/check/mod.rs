//! `allfives check BOT`: a conformance check for bot authors. It shakes hands with the bot,
//! plays it through fixed positions that every bot meets sooner or later (a lead, a choice of
//! ends, a spinner's short ends, a forced draw, a pass), and says PASS or FAIL for each step.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::bot::builtin::Builtin;
use crate::bot::clock::Clocks;
use crate::bot::fault::Fault;
use crate::bot::lifetime::Processes;
use crate::bot::player::{Player, Stop, ms};
use crate::bot::process::Ending;
use crate::gamelog::{self, GameLog, Replay};
use crate::referee::game::{FaultPolicy, GRACE, GameSetup, play_game};
use allfives_engine::deal::Deal;
use allfives_engine::game::{Event, Move, Play};
use allfives_engine::layout::EndId;
use allfives_engine::rules::Rules;
use allfives_engine::tile::{ALL_TILES, Tile};

/// The bot's seat in every scripted game; the referee's scripted opponent sits at 1.
const BOT: usize = 0;

/// One step's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// What was checked.
    pub name: &'static str,
    /// Whether the bot passed.
    pub passed: bool,
    /// What happened, in one sentence.
    pub detail: String,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed { "PASS" } else { "FAIL" };
        write!(f, "{verdict}  {}: {}", self.name, self.detail)
    }
}

/// A fixed position: the deal, the opponent's plan, and what the bot must have done.
struct Scenario {
    name: &'static str,
    bot: &'static [&'static str],
    opponent: &'static [&'static str],
    boneyard_first: &'static [&'static str],
    leader: usize,
    verify: fn(&Replay) -> Result<String, String>,
}

const SCENARIOS: [Scenario; 5] = [
    Scenario {
        name: "lead",
        bot: &["[1|2]", "[3|4]", "[5|6]"],
        opponent: &["[0|0]", "[0|1]", "[0|2]"],
        boneyard_first: &[],
        leader: BOT,
        verify: verify_lead,
    },
    // The lead is no double: a double's bare left and right mirror each other, and a choice
    // between them is no choice. The bot's [1|5] is forced; then [5|6] fits left and right.
    Scenario {
        name: "choice of ends",
        bot: &["[1|5]", "[5|6]", "[2|2]"],
        opponent: &["[1|3]", "[3|6]", "[0|0]"],
        boneyard_first: &[],
        leader: 1,
        verify: verify_choice,
    },
    Scenario {
        name: "spinner's short ends",
        bot: &["[0|5]", "[5|6]", "[2|5]"],
        opponent: &["[5|5]", "[3|5]", "[0|0]"],
        boneyard_first: &[],
        leader: 1,
        verify: verify_short_end,
    },
    // The bot's [1|6] is forced (the double lead's two sides mirror each other); after the
    // opponent's [0|6] it holds nothing for 1, 0 or 6, draws [4|5], then [0|1], which fits left
    // and right.
    Scenario {
        name: "forced draw",
        bot: &["[1|6]", "[2|3]", "[2|4]"],
        opponent: &["[6|6]", "[0|6]", "[0|0]"],
        boneyard_first: &["[4|5]", "[0|1]"],
        leader: 1,
        verify: verify_drawn_tile,
    },
    Scenario {
        name: "pass",
        bot: &[
            "[0|0]", "[0|1]", "[0|2]", "[0|3]", "[0|4]", "[0|5]", "[1|1]", "[1|2]", "[1|3]",
            "[1|4]", "[1|5]", "[2|2]", "[2|3]", "[2|4]",
        ],
        opponent: &["[6|6]", "[0|6]"],
        boneyard_first: &[],
        leader: 1,
        verify: verify_pass,
    },
];

/// Runs every step against the bot; logs go to `dir`.
pub async fn check(bot: Player, clocks: Clocks, dir: &Path) -> std::io::Result<Vec<Step>> {
    let mut steps = Vec::new();
    // One process serves every scripted game, as in a match; seat 1 is the scripted opponent.
    let mut table = [bot, Player::with_builtin("script", Builtin::Greedy)];
    let start = Instant::now();
    let handshake = table[BOT].start(&clocks).await;
    steps.push(Step {
        name: "handshake",
        passed: handshake.is_ok(),
        detail: match &handshake {
            Ok(()) => format!("answered in {:.0} ms", ms(start.elapsed())),
            Err(fault) => describe_fault(fault, None),
        },
    });
    if handshake.is_err() {
        return Ok(steps);
    }
    for (i, scenario) in SCENARIOS.iter().enumerate() {
        steps.push(play_scenario(&mut table, scenario, i as u32 + 1, clocks, dir).await?);
    }
    steps.push(exit_step(&mut table[BOT], &clocks).await);
    Ok(steps)
}

/// Whether the bot exits by itself on `bye` and the end of its input (restarted first if a
/// fault stopped it).
async fn exit_step(bot: &mut Player, clocks: &Clocks) -> Step {
    let within = GRACE.as_millis();
    let ending = match bot.start(clocks).await {
        Ok(()) => bot.stop(Stop::Politely(GRACE)).await,
        Err(fault) => {
            return Step {
                name: "exit",
                passed: false,
                detail: format!("could not be restarted to check it: {fault}"),
            };
        }
    };
    if ending == Some(Ending::Exited) && bot.left_processes() == Some(true) {
        return Step {
            name: "exit",
            passed: false,
            detail: "exited, but left processes running (they were killed): a bot must end \
                     every process it starts"
                .to_string(),
        };
    }
    Step {
        name: "exit",
        passed: matches!(ending, Some(Ending::Exited) | None),
        detail: match ending {
            Some(Ending::Exited) => {
                format!("exited within {within} ms of bye and its input closing")
            }
            None => "runs inside the referee: nothing to stop".to_string(),
            Some(Ending::Terminated) => {
                format!("still running {within} ms after bye: it needed SIGTERM")
            }
            Some(Ending::Killed) => {
                format!("still running {within} ms after bye and SIGTERM: it needed SIGKILL")
            }
        },
    }
}

async fn play_scenario(
    table: &mut [Player; 2],
    scenario: &Scenario,
    number: u32,
    clocks: Clocks,
    dir: &Path,
) -> std::io::Result<Step> {
    let deal = scenario.deal();
    let mut rules = Rules::new(2);
    rules.hand_size = scenario.bot.len();
    rules.max_hands = 1;
    rules.target = 1000;
    let setup = GameSetup {
        number,
        seed: 0,
        rules,
        seating: vec![0, 1],
        clocks,
        on_fault: FaultPolicy::Forfeit,
        protections: None,
        deals: Arc::from([deal]),
        arrangement: 0,
        // Every scripted game is a position of its own, written in this file for all to read
        // (and seed 0 for each, which deals nothing in a game of one hand): one process serves
        // them all, as a match's would.
        processes: Processes::Reused,
        public_seed: false,
    };
    let script = scenario.opponent.iter().map(|t| tile(t)).collect();
    table[1 - BOT] = Player::with_builtin("script", Builtin::Script(script));
    let path = dir.join(format!("check-{number}.jsonl"));
    let mut log = GameLog::create(&path)?;
    let record = play_game(&setup, table, &mut log).await?;
    let outcome = match record.faults.first() {
        Some(fault) => Err(describe_fault(&fault.fault, Some(&path))),
        None => {
            let text = std::fs::read_to_string(&path)?;
            match gamelog::replay(&text) {
                Ok(replay) => (scenario.verify)(&replay),
                Err(e) => Err(format!("the game's log does not replay: {e}")),
            }
        }
    };
    Ok(Step {
        name: scenario.name,
        passed: outcome.is_ok(),
        detail: outcome.unwrap_or_else(|e| e),
    })
}

/// The fault, the line that caused it (if any) and the game's log (if any).
fn describe_fault(fault: &Fault, log: Option<&Path>) -> String {
    let mut text = fault.to_string();
    if let Some(log) = log {
        text.push_str(&format!("; log: {}", log.display()));
    }
    text
}

impl Scenario {
    /// The deal: the bot's and the opponent's tiles (the opponent's filled up to the same size
    /// with the lowest tiles left), the boneyard's first tiles, then the rest in canonical order.
    fn deal(&self) -> Deal {
        let size = self.bot.len();
        let bot: Vec<Tile> = self.bot.iter().map(|t| tile(t)).collect();
        let first: Vec<Tile> = self.boneyard_first.iter().map(|t| tile(t)).collect();
        let mut opponent: Vec<Tile> = self.opponent.iter().map(|t| tile(t)).collect();
        let taken = |t: &Tile, opponent: &[Tile]| {
            bot.contains(t) || opponent.contains(t) || first.contains(t)
        };
        for t in ALL_TILES {
            if opponent.len() < size && !taken(&t, &opponent) {
                opponent.push(t);
            }
        }
        let mut boneyard = first.clone();
        boneyard.extend(ALL_TILES.iter().filter(|t| !taken(t, &opponent)));
        let mut hands = vec![Vec::new(), Vec::new()];
        hands[BOT] = bot;
        hands[1 - BOT] = opponent;
        Deal {
            hands,
            boneyard,
            leader: self.leader,
        }
    }
}

fn tile(text: &str) -> Tile {
    text.parse()
        .expect("the scenarios' tiles are written correctly")
}

/// The bot's plays in order, with whether it was asked (not played for it for want of a choice).
fn bot_plays(replay: &Replay) -> Vec<(Move, bool)> {
    replay
        .decisions
        .iter()
        .filter(|(seat, _, _)| *seat == BOT)
        .map(|(_, mv, d)| (*mv, d.time_us.is_some()))
        .collect()
}

/// A play of the bot in words: the tile, where it went, and whether the bot chose it.
fn described(play: Option<&(Move, bool)>) -> String {
    match play {
        None => "no play of the bot".to_string(),
        Some((mv, asked)) => {
            let place = mv
                .end
                .map_or("led".to_string(), |e| format!("on {}", e.name()));
            let who = if *asked {
                ""
            } else {
                " (played by the referee)"
            };
            format!("{} {place}{who}", mv.tile)
        }
    }
}

fn verify_lead(replay: &Replay) -> Result<String, String> {
    match bot_plays(replay).first() {
        Some((mv, true)) if mv.end.is_none() => Ok(format!("led {} on an empty layout", mv.tile)),
        other => Err(format!(
            "expected the bot to be asked to lead, saw {}",
            described(other)
        )),
    }
}

fn verify_choice(replay: &Replay) -> Result<String, String> {
    match bot_plays(replay).iter().find(|(_, asked)| *asked) {
        Some((mv, true)) => Ok(format!(
            "played {} on {} when it could choose left or right",
            mv.tile,
            mv.end.map_or("?", EndId::name)
        )),
        other => Err(format!(
            "expected the bot to be asked to choose an end, saw {}",
            described(other)
        )),
    }
}

fn verify_short_end(replay: &Replay) -> Result<String, String> {
    bot_plays(replay)
        .iter()
        .find(|(mv, asked)| *asked && mv.end.is_some_and(EndId::is_short))
        .map(|(mv, _)| {
            format!(
                "played {} on the spinner's {} end",
                mv.tile,
                mv.end.map_or("?", EndId::name)
            )
        })
        .ok_or_else(|| "the bot never played on a spinner's short end".to_string())
}

fn verify_drawn_tile(replay: &Replay) -> Result<String, String> {
    let mut plays = bot_plays(replay).into_iter();
    // The bot's draws since its last play.
    let mut drew: Vec<Tile> = Vec::new();
    for event in &replay.events {
        match event {
            Event::Draw { seat: BOT, tile } => drew.push(*tile),
            Event::Play(Play { seat: BOT, .. }) => match plays.next() {
                Some((mv, true)) => {
                    return match drew.last() {
                        Some(drawn) if mv.tile == *drawn => Ok(format!(
                            "drew {} tiles and played the one that fit, {drawn}, on {}",
                            drew.len(),
                            mv.end.map_or("?", EndId::name)
                        )),
                        _ => Err(format!(
                            "expected the bot to play the tile it drew ({}), saw {}",
                            drew.iter()
                                .map(Tile::to_string)
                                .collect::<Vec<_>>()
                                .join(" "),
                            described(Some(&(mv, true)))
                        )),
                    };
                }
                _ => drew.clear(),
            },
            _ => {}
        }
    }
    Err("the bot was never asked to play a tile it drew".to_string())
}

fn verify_pass(replay: &Replay) -> Result<String, String> {
    let events = &replay.events;
    let passed = events
        .iter()
        .position(|e| matches!(e, Event::Pass { seat: BOT }));
    let later_play = passed.and_then(|at| {
        events[at..]
            .iter()
            .any(|e| matches!(e, Event::Play(Play { seat: BOT, .. })))
            .then_some(())
    });
    match (passed, later_play) {
        (Some(_), Some(())) => Ok("passed with an empty boneyard, then played on".to_string()),
        _ => Err("expected a pass by the bot and a play after it".to_string()),
    }
}
