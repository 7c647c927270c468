//! Reading a game log back and replaying it through the engine, line by line.

use allfives_engine::game::{Event, Game, Move, Play};
use allfives_engine::rules::Seat;

use super::format::{Decision, GameEnd, Header, LOG_FORMAT, Logged, RefereeLine, SeatFault};

/// Why a log cannot be replayed, with the line it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct LogError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// A log read back and checked against the engine.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The header.
    pub header: Header,
    /// The game as the engine replayed it.
    pub game: Game,
    /// Every play with how it was decided, in order.
    pub decisions: Vec<(Seat, Move, Decision)>,
    /// The faults logged.
    pub faults: Vec<SeatFault>,
    /// The last line, if the log is complete.
    pub end: Option<GameEnd>,
}

/// Replays a log through the engine, checking every recorded event against the engine's.
/// A log cut short (a killed referee) replays up to where it stops, with `end` absent.
pub fn replay(text: &str) -> Result<Replay, LogError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or(LogError {
        line: 1,
        why: "the log is empty".into(),
    })?;
    let header = match serde_json::from_str(first) {
        Ok(RefereeLine::Header(h)) => h,
        _ => {
            return Err(LogError {
                line: 1,
                why: "the first line is not a game log header".into(),
            });
        }
    };
    if header.format != LOG_FORMAT {
        return Err(LogError {
            line: 1,
            why: format!(
                "log format {} is not {LOG_FORMAT}, which this referee reads",
                header.format
            ),
        });
    }
    let game = Game::new(header.rules)
        .map_err(|e| LogError {
            line: 1,
            why: format!("the rules are invalid: {e}"),
        })?
        .numbered(header.game);
    let mut replay = Replay {
        header,
        game,
        decisions: Vec::new(),
        faults: Vec::new(),
        end: None,
    };
    let mut checked = 0;
    for (index, text) in lines {
        let line = index + 1;
        let fail = |why: String| LogError { line, why };
        if replay.end.is_some() {
            return Err(fail("a line follows the game's end".into()));
        }
        if let Ok(referee) = serde_json::from_str::<RefereeLine>(text) {
            apply_referee_line(&mut replay, referee).map_err(fail)?;
            continue;
        }
        let logged: Logged =
            serde_json::from_str(text).map_err(|e| fail(format!("not a log entry: {e}")))?;
        apply_event(&mut replay, &logged, &mut checked).map_err(fail)?;
    }
    Ok(replay)
}

fn apply_referee_line(replay: &mut Replay, line: RefereeLine) -> Result<(), String> {
    match line {
        RefereeLine::Header(_) => Err("a second header".into()),
        RefereeLine::Fault(fault) => {
            replay.faults.push(fault);
            Ok(())
        }
        RefereeLine::GameEnd(end) => {
            if let Some(forfeit) = end.forfeits.first() {
                replay
                    .game
                    .forfeit(forfeit.seat)
                    .map_err(|e| e.to_string())?;
            }
            match replay.game.result() {
                Some(result) if *result == end.result => {
                    replay.end = Some(end);
                    Ok(())
                }
                Some(result) => Err(format!(
                    "the logged result {:?} differs from the engine's {result:?}",
                    end.result
                )),
                None => Err("the game ends in the log but not in the engine".into()),
            }
        }
    }
}

/// Feeds a logged event to the engine (deals and plays) and checks that the engine produced
/// exactly the logged events.
fn apply_event(replay: &mut Replay, logged: &Logged, checked: &mut usize) -> Result<(), String> {
    let game = &mut replay.game;
    match &logged.event {
        Event::HandStart { deal, .. } => {
            game.start_hand((**deal).clone())
                .map_err(|e| e.to_string())?;
        }
        Event::Play(Play {
            seat, tile, end, ..
        }) => {
            let mv = Move {
                tile: *tile,
                end: *end,
            };
            game.play(*seat, mv)
                .map_err(|e| format!("illegal play: {e}"))?;
            replay.decisions.push((*seat, mv, logged.decision));
        }
        _ => {}
    }
    let expected = game.events().get(*checked).ok_or_else(|| {
        format!(
            "the log has {:?}, which the engine did not produce",
            logged.event
        )
    })?;
    if *expected != logged.event {
        return Err(format!(
            "the log has {:?} where the engine has {expected:?}",
            logged.event
        ));
    }
    *checked += 1;
    // The engine's own game end is not logged: the referee's line, with forfeits, stands for it.
    if let Some(Event::GameEnd(_)) = game.events().get(*checked) {
        *checked += 1;
    }
    Ok(())
}
