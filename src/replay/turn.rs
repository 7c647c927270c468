//! A logged decision as the bot met it: the position before the game's `K`-th decision, the
//! exact `turn` message its bot was sent, and posing that position to another bot.

use crate::referee::bot_seed::bot_seed;
use std::sync::Arc;
use std::time::Duration;

use allfives_engine::game::{Event, Game, Move};
use allfives_engine::json::TurnWriter;
use allfives_engine::protocol::{MAX_BOT_LINE, ToBot};
use allfives_engine::rules::Seat;

use crate::bot::clock::Clocks;
use crate::bot::fault::Fault;
use crate::bot::player::{BotSpec, Player, Stop, encode};
use crate::bot::process::{Nothing, StderrSink};
use crate::gamelog::describe;
use crate::gamelog::{Decision, LoggedFault, Replay, SeatFault};
use crate::referee::game::{GRACE, told};
use crate::sandbox::Policy;

/// The position before a decision, and what was decided there.
#[derive(Debug, Clone)]
pub struct Position {
    /// The game just before the move.
    pub game: Game,
    /// The seat on move.
    pub seat: Seat,
    /// What was played: the bot's move, or the referee's after its fault; `None` when the fault
    /// cost the game.
    pub played: Option<Move>,
    /// How it was decided (for a fault that cost the game: nothing was).
    pub decision: Decision,
    /// The bot's fault at this decision, if it faulted.
    pub fault: Option<SeatFault>,
    /// The id of the turn request (`None` when the log does not say: a fault logged before
    /// faults carried it, in a game of a match).
    pub id: Option<u64>,
    /// The time the bot was given, in milliseconds.
    pub time_left_ms: u64,
    /// What the bot wrote on stderr while it decided.
    pub stderr: Vec<String>,
}

/// A decision met on the way through the log.
struct Met<'a> {
    seat: Seat,
    fault: Option<&'a LoggedFault>,
    play: Option<&'a (Seat, Move, Decision)>,
}

/// Which decision to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// The `K`-th decision (every time a bot was asked for a move, whether it answered or
    /// faulted, from 1), or with a seat that seat's.
    Turn(u32),
    /// The decision of the `K`-th fault at a decision (from 1), or with a seat that seat's.
    Fault(u32),
}

/// The decision `wanted` of the game, and its number as `--turn` counts them (without a seat).
pub fn position(
    replay: &Replay,
    wanted: Wanted,
    seat: Option<Seat>,
) -> Result<(Position, u32), String> {
    let h = &replay.header;
    let clocks = Clocks::from_info(h.clock, h.clock_kind);
    let mut seat_clocks: Vec<_> = (0..h.rules.players).map(|_| clocks.start_game()).collect();
    let mut asked = vec![0u64; h.rules.players];
    let mut game = Game::new(h.rules)
        .map_err(|e| e.to_string())?
        .numbered(h.game);
    let mut decisions = replay.decisions.iter();
    // A fault before the first deal (a bot that did not start) is at no decision.
    let mut faults = replay.faults.iter().filter(|f| f.after > 0).peekable();
    let (mut found, mut faults_found, mut all) = (0, 0, 0);
    let mut index = 0;
    loop {
        let fault = faults.next_if(|f| f.after <= index);
        let event = match fault {
            Some(_) => None,
            None => match replay.events.get(index) {
                Some(event) => Some(event),
                None => break,
            },
        };
        let met = match (fault, event) {
            (Some(f), _) => {
                let fallback = (!f.fault.forfeit).then(|| decisions.next()).flatten();
                index += usize::from(fallback.is_some());
                Some(Met {
                    seat: f.fault.seat,
                    fault: Some(f),
                    play: fallback,
                })
            }
            (None, Some(Event::Play(_))) => {
                let play = decisions.next().ok_or("a play without a decision")?;
                index += 1;
                if play.2.forced {
                    // Played without asking.
                    game.play(play.0, play.1).map_err(|e| e.to_string())?;
                    None
                } else {
                    Some(Met {
                        seat: play.0,
                        fault: None,
                        play: Some(play),
                    })
                }
            }
            (None, Some(Event::HandStart { deal, .. })) => {
                game.start_hand((**deal).clone())
                    .map_err(|e| e.to_string())?;
                index += 1;
                None
            }
            (None, _) => {
                index += 1;
                None
            }
        };
        let Some(met) = met else { continue };
        let by = met.seat;
        asked[by] += 1;
        all += 1;
        if seat.is_none_or(|s| s == by) {
            found += 1;
            faults_found += u32::from(met.fault.is_some());
            let here = match wanted {
                Wanted::Turn(turn) => found == turn,
                Wanted::Fault(k) => met.fault.is_some() && faults_found == k,
            };
            if here {
                let logged_id = met
                    .play
                    .and_then(|p| p.2.id)
                    .or(met.fault.and_then(|f| f.fault.id));
                // Format 1 logs carry no ids: a bot's hello is request 1.
                let id = logged_id.or((h.format == 1).then_some(asked[by] + 1));
                let stderr = replay
                    .stderr
                    .iter()
                    .find(|s| s.record.seat == by && Some(s.record.id) == logged_id)
                    .map_or_else(Vec::new, |s| s.record.lines.clone());
                let position = Position {
                    stderr,
                    id,
                    time_left_ms: seat_clocks[by].allowance().as_millis() as u64,
                    game,
                    seat: by,
                    played: met.play.map(|p| p.1),
                    decision: met.play.map(|p| p.2.clone()).unwrap_or_default(),
                    fault: met.fault.map(|f| f.fault.clone()),
                };
                return Ok((position, all));
            }
        }
        if let Some(us) = met.play.and_then(|p| p.2.time_us) {
            seat_clocks[by].charge(Duration::from_micros(us));
        }
        match met.play {
            Some(&(by, mv, _)) => game.play(by, mv).map_err(|e| e.to_string())?,
            None => break,
        };
    }
    let whose = seat.map_or(String::new(), |s| format!(" of seat {s}"));
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    Err(match wanted {
        Wanted::Turn(turn) => format!(
            "the game has {found} decision{} (a move a bot was asked for){whose}, so no turn {turn}",
            plural(found)
        ),
        Wanted::Fault(k) => format!(
            "the game has {faults_found} fault{} at a decision{whose}, so no fault {k}",
            plural(faults_found)
        ),
    })
}

impl Position {
    /// The `turn` message the bot was sent, written by the referee's own writer (newline
    /// included).
    pub fn message(&self) -> Vec<u8> {
        let mut line = Vec::new();
        // An id the log does not hold (a fault of an older log) is written 0.
        let id = self.id.unwrap_or(0);
        TurnWriter::new().write_turn(&self.game, self.seat, id, self.time_left_ms, &mut line);
        line
    }

    /// A move in words, with what it scores here.
    pub fn describe(&self, mv: Move) -> String {
        let view = self.game.view(self.seat);
        let place = mv.end.map_or("leads".to_string(), |e| format!("on {e}"));
        match view.legal.iter().find(|c| c.to_move() == mv) {
            Some(c) => format!(
                "{} {place}: sum {}, {}",
                mv.tile,
                c.sum,
                describe::count(c.points, "point")
            ),
            None => match self.game.check(self.seat, mv) {
                Err(e) => format!("{} {place}, which is illegal: {e}", mv.tile),
                Ok(()) => format!("{} {place}", mv.tile),
            },
        }
    }
}

/// What a bot answered when posed a position.
pub enum Answer {
    /// A move, and how long it took.
    Move(Move, Duration),
    /// It broke the protocol.
    Fault(Fault),
}

/// Poses `position` to the bot `spec`, contained by `policy`: it is started and told the game
/// and the hand so far, as the seat on move was, then asked to move; then it is stopped. The
/// answer comes with the bot's name as a match shows it (its hello's, unless one was given).
pub async fn ask(
    replay: &Replay,
    position: &Position,
    spec: BotSpec,
    policy: Arc<Policy>,
) -> (String, Answer) {
    let h = &replay.header;
    let clocks = Clocks::from_info(h.clock, h.clock_kind);
    let sink = StderrSink {
        file: None,
        cap: 0,
        echo_prefix: Some(format!("[{}] ", spec.name)),
        lines: None,
    };
    let mut player = Player::new(spec, h.seed, sink, MAX_BOT_LINE, policy);
    if let Err(fault) = player.start(&clocks).await {
        return (player.display_name().to_string(), Answer::Fault(fault));
    }
    let seat = position.seat;
    player.queue(&encode(&ToBot::GameStart {
        game: h.game,
        seat,
        rules: h.rules,
        players: h.seats.iter().map(|s| s.bot.clone()).collect(),
        clock: h.clock,
        bot_seed: Some(bot_seed(h.seed, seat)),
    }));
    let events = position.game.events();
    let hand_start = events
        .iter()
        .rposition(|e| matches!(e, Event::HandStart { .. }))
        .unwrap_or(0);
    for event in &events[hand_start..] {
        player.queue_with(|line| told(event, seat, line));
    }
    let mut clock = clocks.start_game();
    let mut turns = TurnWriter::new();
    let answer = match player
        .ask(&position.game, seat, &mut turns, &mut clock, &mut Nothing)
        .await
    {
        Ok(answered) => Answer::Move(answered.mv, answered.took),
        Err(fault) => Answer::Fault(fault),
    };
    player.stop(Stop::Politely(GRACE)).await;
    (player.display_name().to_string(), answer)
}
