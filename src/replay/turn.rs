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
use crate::bot::process::StderrSink;
use crate::gamelog::describe;
use crate::gamelog::{Decision, Replay};
use crate::referee::game::{GRACE, told};
use crate::sandbox::Policy;

/// The position before a decision, and what was decided there.
#[derive(Debug, Clone)]
pub struct Position {
    /// The game just before the move.
    pub game: Game,
    /// The seat on move.
    pub seat: Seat,
    /// What was played.
    pub played: Move,
    /// How it was decided.
    pub decision: Decision,
    /// The id of the turn request.
    pub id: u64,
    /// The time the bot was given, in milliseconds.
    pub time_left_ms: u64,
}

/// The game's `turn`-th decision (a move a bot was asked for, from 1), or with `seat` that seat's.
pub fn position(replay: &Replay, turn: u32, seat: Option<Seat>) -> Result<Position, String> {
    let h = &replay.header;
    let clocks = Clocks::from_info(h.clock, h.clock_kind);
    let mut seat_clocks: Vec<_> = (0..h.rules.players).map(|_| clocks.start_game()).collect();
    let mut asked = vec![0u64; h.rules.players];
    let mut game = Game::new(h.rules)
        .map_err(|e| e.to_string())?
        .numbered(h.game);
    let mut decisions = replay.decisions.iter();
    let mut found = 0;
    for event in &replay.events {
        match event {
            Event::HandStart { deal, .. } => game
                .start_hand((**deal).clone())
                .map_err(|e| e.to_string())?,
            Event::Play(_) => {
                let &(by, mv, decision) = decisions.next().ok_or("a play without a decision")?;
                if !decision.forced {
                    asked[by] += 1;
                    if seat.is_none_or(|s| s == by) {
                        found += 1;
                    }
                    if found == turn && seat.is_none_or(|s| s == by) {
                        return Ok(Position {
                            // Format 1 logs carry no ids: a bot's hello is request 1.
                            id: decision.id.unwrap_or(asked[by] + 1),
                            time_left_ms: seat_clocks[by].allowance().as_millis() as u64,
                            game,
                            seat: by,
                            played: mv,
                            decision,
                        });
                    }
                }
                if let Some(us) = decision.time_us {
                    seat_clocks[by].charge(Duration::from_micros(us));
                }
                game.play(by, mv).map_err(|e| e.to_string())?;
            }
            _ => {}
        }
    }
    let whose = seat.map_or(String::new(), |s| format!(" of seat {s}"));
    Err(format!(
        "the game has {} decision{} (a move a bot was asked for){whose}, so no turn {turn}",
        found,
        if found == 1 { "" } else { "s" }
    ))
}

impl Position {
    /// The `turn` message the bot was sent, written by the referee's own writer (newline
    /// included).
    pub fn message(&self) -> Vec<u8> {
        let mut line = Vec::new();
        TurnWriter::new().write_turn(&self.game, self.seat, self.id, self.time_left_ms, &mut line);
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
/// and the hand so far, as the seat on move was, then asked to move; then it is stopped.
pub async fn ask(
    replay: &Replay,
    position: &Position,
    spec: BotSpec,
    policy: Arc<Policy>,
) -> Answer {
    let h = &replay.header;
    let clocks = Clocks::from_info(h.clock, h.clock_kind);
    let sink = StderrSink {
        file: None,
        cap: 0,
        echo_prefix: Some(format!("[{}] ", spec.name)),
    };
    let mut player = Player::new(spec, h.seed, sink, MAX_BOT_LINE, policy);
    if let Err(fault) = player.start(&clocks).await {
        return Answer::Fault(fault);
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
        .ask(&position.game, seat, &mut turns, &mut clock)
        .await
    {
        Ok((mv, took)) => Answer::Move(mv, took),
        Err(fault) => Answer::Fault(fault),
    };
    player.stop(Stop::Politely(GRACE)).await;
    answer
}
