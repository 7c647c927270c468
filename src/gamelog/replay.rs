//! Reading a game log back and replaying it through the engine, line by line, checking every
//! field of every line: what the referee could not have written is refused, naming the line.

use allfives_engine::deal::Deal;
use allfives_engine::game::{Event, Game, Move, Play, Status};
use allfives_engine::layout::EndId;
use allfives_engine::protocol::{Info, MAX_INFO, PROTOCOL_VERSION};
use allfives_engine::rules::Seat;
use allfives_engine::tile::Tile;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::describe;
use super::format::{
    Decision, GameEnd, Header, LOG_FORMAT, Logged, OLDEST_LOG_FORMAT, RefereeLine, SeatFault,
    StderrRecord,
};
use super::writer::write_event;
use crate::bot::fault::{EXCERPT, FaultKind};
use crate::bot::stderr_lines::{MAX_LINE_CHARS, MAX_LINES};

/// Why a log cannot be replayed, with the line it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct LogError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it, in plain words.
    pub why: String,
}

/// A fault as logged, with where it fell in the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedFault {
    /// How many engine events came before it.
    pub after: usize,
    /// The fault.
    pub fault: SeatFault,
}

/// A bot's stderr lines as logged, with where they fell in the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedStderr {
    /// How many engine events came before them.
    pub after: usize,
    /// The lines, with their seat and request id.
    pub record: StderrRecord,
}

/// A log read back and checked against the engine.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The header.
    pub header: Header,
    /// The game as the engine replayed it (it keeps only the last hand's events).
    pub game: Game,
    /// Every event of the game as the engine replayed it, in order.
    pub events: Vec<Event>,
    /// Every play with how it was decided, in order.
    pub decisions: Vec<(Seat, Move, Decision)>,
    /// The faults logged, in order.
    pub faults: Vec<LoggedFault>,
    /// The bots' stderr lines logged, in order.
    pub stderr: Vec<LoggedStderr>,
    /// The last line, if the log is complete.
    pub end: Option<GameEnd>,
    /// The number of a last line cut off mid-way (the referee was killed while writing it).
    pub torn: Option<usize>,
}

impl Replay {
    /// Whether every deal was checked against the seed: none came from a deal file, and the log
    /// says so (format 1 logs do not say which deals came from the seed).
    pub fn deals_checked(&self) -> bool {
        self.header.deal_file_hands == Some(0)
    }

    /// Which deals were checked and how, in words: those drawn from the seed against it, those
    /// of a deal file against the rules only (a deal file's deals are anyone's choice, so a log
    /// whose every hand came from one says nothing of its seed).
    pub fn deals_said(&self) -> String {
        let hands = self.deals().len() as u32;
        match self.header.deal_file_hands.map(|f| f.min(hands)) {
            None => "deals not checked against the seed (log format 1 does not say which came \
                     from it)"
                .into(),
            Some(0) => "deals checked against the seed".into(),
            Some(file) if file == hands => format!(
                "no deal checked against the seed: {} from a deal file, checked against the \
                 rules only",
                match hands {
                    1 => "the hand came".to_string(),
                    n => format!("all {n} hands came"),
                }
            ),
            Some(file) => format!(
                "{} from a deal file, checked against the rules only; hands {} to {hands} checked \
                 against the seed",
                match file {
                    1 => "hand 1 came".to_string(),
                    n => format!("hands 1 to {n} came"),
                },
                file + 1
            ),
        }
    }

    /// Each hand's deal, in order.
    pub fn deals(&self) -> Vec<Deal> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::HandStart { deal, .. } => Some((**deal).clone()),
                _ => None,
            })
            .collect()
    }
}

/// Replays a log through the engine, checking every line. A log cut short (a killed referee)
/// replays up to where it stops, with `end` absent; a torn last line is reported in `torn`.
pub fn replay(text: &str) -> Result<Replay, LogError> {
    let whole = text.ends_with('\n');
    let mut lines: Vec<&str> = text.split('\n').collect();
    if whole {
        lines.pop();
    }
    let fail = |line: usize, why: String| LogError { line, why };
    let first = lines.first().filter(|l| !l.is_empty()).ok_or(LogError {
        line: 1,
        why: "the log is empty".into(),
    })?;
    let header = read_header(first, whole || lines.len() > 1).map_err(|why| fail(1, why))?;
    let mut checker = Checker::new(header).map_err(|why| fail(1, why))?;
    let count = lines.len();
    for (index, text) in lines.into_iter().enumerate().skip(1) {
        let line = index + 1;
        if checker.replay.end.is_some() {
            return Err(fail(line, "a line follows the game's end".into()));
        }
        if text.trim().is_empty() {
            return Err(fail(line, "an empty line (the referee writes none)".into()));
        }
        let read = match exact(text) {
            Some(read) => Ok(read),
            None => match serde_json::from_str::<Value>(text) {
                Ok(value) => parse(&value),
                Err(_) if !whole && line == count => {
                    checker.replay.torn = Some(line);
                    break;
                }
                Err(e) => {
                    let why = crate::input::json_error(&e);
                    return Err(fail(line, format!("not JSON ({why})")));
                }
            },
        };
        read.and_then(|read| checker.read(read))
            .map_err(|why| fail(line, why))?;
        let Replay { game, events, .. } = &mut checker.replay;
        events.extend_from_slice(game.events_since(events.len()));
    }
    Ok(checker.replay)
}

/// A line read and checked to be one the referee writes: its own, or an engine event.
enum Line {
    Referee(RefereeLine),
    Event(Logged),
}

/// `text` read as a line exactly as the referee writes it, byte for byte (its fields in their
/// order, no spacing); `None` for any other text, which is then read field by field (to accept
/// a line that differs only in spacing or order, or to say what is wrong). Most of a check's
/// time went into that reading, for lines that are, almost always, exactly as written.
fn exact(text: &str) -> Option<Line> {
    let kind = text.strip_prefix(r#"{"type":""#)?.split('"').next()?;
    let plain = |event| Logged {
        event,
        decision: Decision::default(),
    };
    let logged = match kind {
        "play" => serde_json::from_str::<PlayLine>(text).ok()?.logged(),
        "draw" => {
            let DrawLine { seat, tile, .. } = serde_json::from_str(text).ok()?;
            plain(Event::Draw { seat, tile })
        }
        "pass" => {
            let PassLine { seat, .. } = serde_json::from_str(text).ok()?;
            plain(Event::Pass { seat })
        }
        "hand_start" => {
            let HandStartLine { hand, deal, .. } = serde_json::from_str(text).ok()?;
            plain(Event::HandStart { hand, deal })
        }
        "hand_end" => plain(serde_json::from_str(text).ok()?),
        _ => {
            let line: RefereeLine = serde_json::from_str(text).ok()?;
            let canonical = serde_json::to_vec(&line).ok()?;
            return (canonical == text.as_bytes()).then_some(Line::Referee(line));
        }
    };
    let mut canonical = Vec::with_capacity(text.len());
    write_event(&logged.event, &logged.decision, &mut canonical).ok()?;
    (canonical == text.as_bytes()).then_some(Line::Event(logged))
}

/// A line read field by field, each as the referee writes it.
fn parse(value: &Value) -> Result<Line, String> {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .ok_or("a line without a \"type\"")?;
    match kind {
        "header" => Err("a second header".into()),
        "fault" | "game_end" | "stderr" => Ok(Line::Referee(strict(value, kind)?)),
        "hand_start" | "play" | "draw" | "pass" | "hand_end" => {
            Ok(Line::Event(strict_event(value, kind)?))
        }
        other => Err(format!("\"{other}\" is not a kind of log line")),
    }
}

/// A play line's fields, read straight into their types: reading an event line as [`Logged`]
/// (two flattened parts, one of them tagged) buffers every field first, and most lines are plays,
/// draws and deals. What these read counts only once written back exactly as the line is
/// ([`exact`]).
#[derive(Deserialize)]
struct PlayLine {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    seat: Seat,
    tile: Tile,
    end: Option<EndId>,
    sum: u32,
    points: u32,
    time_us: Option<u64>,
    #[serde(default)]
    forced: bool,
    #[serde(default)]
    fallback: bool,
    id: Option<u64>,
    info: Option<Info>,
}

/// A draw line's fields (see [`PlayLine`]).
#[derive(Deserialize)]
struct DrawLine {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    seat: Seat,
    tile: Tile,
}

/// A pass line's fields (see [`PlayLine`]).
#[derive(Deserialize)]
struct PassLine {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    seat: Seat,
}

/// A hand's start line's fields (see [`PlayLine`]).
#[derive(Deserialize)]
struct HandStartLine {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    hand: u32,
    deal: Box<Deal>,
}

impl PlayLine {
    fn logged(self) -> Logged {
        let play = Play {
            seat: self.seat,
            tile: self.tile,
            end: self.end,
            sum: self.sum,
            points: self.points,
        };
        let decision = Decision {
            time_us: self.time_us,
            forced: self.forced,
            fallback: self.fallback,
            id: self.id,
            info: self.info,
        };
        Logged {
            event: Event::Play(play),
            decision,
        }
    }
}

fn read_header(text: &str, complete: bool) -> Result<Header, String> {
    if let Some(Line::Referee(RefereeLine::Header(header))) = exact(text) {
        return Ok(header);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| match complete {
        true => format!("the header is not JSON ({})", crate::input::json_error(&e)),
        false => "the log is cut off inside its header".into(),
    })?;
    if value.get("type") != Some(&Value::from("header")) {
        return Err("the first line is not a game log header".into());
    }
    match strict::<RefereeLine>(&value, "header")? {
        RefereeLine::Header(header) => Ok(header),
        _ => Err("the first line is not a game log header".into()),
    }
}

/// Checks that the header describes a game the referee could have played.
fn check_header(h: &Header) -> Result<(), String> {
    if !(OLDEST_LOG_FORMAT..=LOG_FORMAT).contains(&h.format) {
        return Err(format!(
            "log format {} is not one this referee reads ({OLDEST_LOG_FORMAT} to {LOG_FORMAT})",
            h.format
        ));
    }
    if h.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "the header says protocol {}; this referee speaks {PROTOCOL_VERSION}",
            h.protocol
        ));
    }
    if h.game == 0 {
        return Err("the game number is 0; games are numbered from 1".into());
    }
    h.rules
        .validate()
        .map_err(|e| format!("the rules are invalid: {e}"))?;
    if h.seats.len() != h.rules.players {
        return Err(format!(
            "the header names {} but the rules are for {} players",
            describe::count(h.seats.len() as u64, "seat"),
            h.rules.players
        ));
    }
    if let Some(seat) = h.seats.iter().position(|s| s.bot.is_empty()) {
        return Err(format!("seat {seat}'s bot has no name"));
    }
    if h.clock.move_ms == 0 || h.clock.startup_ms == 0 {
        return Err("the clock gives no time to move or to start".into());
    }
    let fallback = match h.on_fault.as_str() {
        "forfeit" => false,
        "fallback" => true,
        other => {
            return Err(format!(
                "on_fault is \"{other}\"; the referee writes \"forfeit\" or \"fallback\""
            ));
        }
    };
    if h.format == 1 {
        if h.max_faults.is_some() || h.deal_file_hands.is_some() {
            return Err("max_faults and deal_file_hands are not fields of log format 1".into());
        }
        return Ok(());
    }
    match h.deal_file_hands {
        None => {
            return Err(
                "the header does not say where the deals came from (deal_file_hands)".into(),
            );
        }
        Some(file) if file > h.rules.max_hands => {
            return Err(format!(
                "deal_file_hands is {file}, over max_hands {}: the referee refuses deals no game \
                 could play",
                h.rules.max_hands
            ));
        }
        Some(_) => {}
    }
    match (fallback, h.max_faults) {
        (true, Some(n)) if n >= 1 => Ok(()),
        (true, _) => Err("on_fault fallback needs max_faults of at least 1".into()),
        (false, Some(_)) => Err("max_faults goes only with on_fault fallback".into()),
        (false, None) => Ok(()),
    }
}

/// Parses `value` as a `T` and insists that it is exactly what the referee writes for that `T`:
/// no unknown field, no missing field, nothing spelled another way.
fn strict<T: DeserializeOwned + Serialize>(value: &Value, what: &str) -> Result<T, String> {
    let typed: T =
        serde_json::from_value(value.clone()).map_err(|e| format!("not a valid {what}: {e}"))?;
    let canonical = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    match difference(value, &canonical, "") {
        None => Ok(typed),
        Some(why) => Err(format!("not a {what} as the referee writes it: {why}")),
    }
}

/// The first way `got` differs from `expected`, in words.
fn difference(got: &Value, expected: &Value, path: &str) -> Option<String> {
    let at = |key: &str| match path {
        "" => key.to_string(),
        _ => format!("{path}.{key}"),
    };
    match (got, expected) {
        (Value::Object(g), Value::Object(e)) => {
            if let Some(key) = g.keys().find(|k| !e.contains_key(*k)) {
                return Some(format!("unexpected field \"{}\"", at(key)));
            }
            if let Some(key) = e.keys().find(|k| !g.contains_key(*k)) {
                return Some(format!("missing field \"{}\"", at(key)));
            }
            g.iter().find_map(|(k, v)| difference(v, &e[k], &at(k)))
        }
        (Value::Array(g), Value::Array(e)) if g.len() == e.len() => g
            .iter()
            .zip(e)
            .enumerate()
            .find_map(|(i, (g, e))| difference(g, e, &format!("{path}[{i}]"))),
        _ if got == expected => None,
        _ => Some(format!("\"{path}\" is {got}, written {expected}")),
    }
}

/// The replay under way: the engine, the seed's generator and what the next lines may be.
struct Checker {
    replay: Replay,
    /// How many of the engine's events the log has matched.
    checked: usize,
    rng: ChaCha8Rng,
    /// A fault that did not cost the game: the seat's fallback move comes next.
    pending: Option<Seat>,
    /// The turn request that fault answered, if logged: the fallback move carries it too.
    pending_id: Option<u64>,
    /// The seats whose faults cost the game (several when bots fail to start).
    forfeited: Vec<Seat>,
    fault_counts: Vec<u32>,
    /// Each seat's time over the per-move limit so far, in microseconds (drawn from its bank).
    bank_used_us: Vec<u64>,
    /// Each seat's last request id (each bot numbers its own requests).
    last_ids: Vec<u64>,
    /// Each seat's stderr lines logged so far.
    stderr_counts: Vec<usize>,
    legal: Vec<Move>,
}

impl Checker {
    fn new(header: Header) -> Result<Checker, String> {
        check_header(&header)?;
        let game = Game::new(header.rules)
            .map_err(|e| format!("the rules are invalid: {e}"))?
            .numbered(header.game);
        Ok(Checker {
            rng: ChaCha8Rng::seed_from_u64(header.seed),
            fault_counts: vec![0; header.rules.players],
            bank_used_us: vec![0; header.rules.players],
            last_ids: vec![0; header.rules.players],
            stderr_counts: vec![0; header.rules.players],
            replay: Replay {
                header,
                game,
                events: Vec::new(),
                decisions: Vec::new(),
                faults: Vec::new(),
                stderr: Vec::new(),
                end: None,
                torn: None,
            },
            checked: 0,
            pending: None,
            pending_id: None,
            forfeited: Vec::new(),
            legal: Vec::new(),
        })
    }

    /// Checks a line read against the game so far.
    fn read(&mut self, line: Line) -> Result<(), String> {
        match line {
            Line::Referee(RefereeLine::Fault(fault)) => self.fault(fault),
            Line::Referee(RefereeLine::Stderr(record)) => self.stderr(record),
            Line::Referee(RefereeLine::GameEnd(end)) => self.game_end(end),
            Line::Referee(RefereeLine::Header(_)) => Err("a second header".into()),
            Line::Event(logged) => {
                if let Some(seat) = self.forfeited.first() {
                    return Err(format!(
                        "the game goes on after seat {seat}'s fault cost it the game"
                    ));
                }
                self.event(&logged)
            }
        }
    }

    /// Feeds a logged event to the engine (deals and plays) and checks that the engine produced
    /// exactly the logged event next.
    fn event(&mut self, logged: &Logged) -> Result<(), String> {
        match &logged.event {
            Event::HandStart { hand, deal } => self.deal(*hand, deal)?,
            Event::Play(play) => self.play(play, &logged.decision)?,
            _ => {}
        }
        if self.pending.is_some() && !matches!(logged.event, Event::Play(_)) {
            return Err(self.unfollowed_fault());
        }
        let game = &self.replay.game;
        let expected = game.events_since(self.checked).first().ok_or_else(|| {
            let said = describe::event(&logged.event);
            let next = match game.status() {
                Status::Dealing { .. } => "the next deal".to_string(),
                Status::ToPlay { seat } => format!("a move by seat {seat}"),
                Status::Over(_) => "nothing: the game is over".to_string(),
            };
            format!("the log has \"{said}\" where the engine expects {next}")
        })?;
        if *expected != logged.event {
            return Err(event_difference(&logged.event, expected));
        }
        self.checked += 1;
        // The engine's own game end is not logged: the referee's line, with forfeits, stands for it.
        if let Some(Event::GameEnd(_)) = game.events_since(self.checked).first() {
            self.checked += 1;
        }
        Ok(())
    }

    fn deal(&mut self, hand: u32, deal: &Deal) -> Result<(), String> {
        let game = &mut self.replay.game;
        let from_file = self.replay.header.deal_file_hands;
        if let (Status::Dealing { leader }, Some(file_hands)) = (game.status(), from_file)
            && hand > file_hands
        {
            let drawn = Deal::random(game.rules(), leader, &mut self.rng)
                .map_err(|e| format!("the rules deal nothing: {e}"))?;
            if drawn != *deal {
                return Err(deal_difference(hand, self.replay.header.seed, &drawn, deal));
            }
        }
        game.start_hand(deal.clone())
            .map_err(|e| format!("the deal of hand {hand} is refused: {e}"))
    }

    fn play(&mut self, play: &Play, decision: &Decision) -> Result<(), String> {
        let game = &mut self.replay.game;
        let (seat, mv) = (
            play.seat,
            Move {
                tile: play.tile,
                end: play.end,
            },
        );
        game.check(seat, mv)
            .map_err(|e| format!("seat {seat} plays {}, which is illegal: {e}", play.tile))?;
        game.legal_moves(&mut self.legal);
        self.check_decision(seat, mv, decision)?;
        self.pending = None;
        let game = &mut self.replay.game;
        game.play(seat, mv)
            .map_err(|e| format!("seat {seat} plays {}, which is illegal: {e}", play.tile))?;
        self.replay.decisions.push((seat, mv, decision.clone()));
        Ok(())
    }

    /// Checks how a move is said to have been decided against the position and the faults.
    fn check_decision(&mut self, seat: Seat, mv: Move, d: &Decision) -> Result<(), String> {
        // Moves that mirror each other are one choice, which the referee plays itself; logs of
        // referees from before that rule asked there, and still check out.
        let choices = self.replay.game.choices(&self.legal);
        let legal = self.legal.len();
        let format = self.replay.header.format;
        if d.forced && d.fallback {
            return Err(
                "a move marked both forced (no real choice) and fallback (played for a bot that faulted)".into(),
            );
        }
        if d.forced && choices > 1 {
            return Err(format!(
                "the move is marked forced, but seat {seat} had {choices} distinct legal moves"
            ));
        }
        if !d.forced && legal == 1 {
            return Err(format!(
                "seat {seat} had a single legal move, which the referee plays itself, but the move is not marked forced"
            ));
        }
        match (d.fallback, self.pending) {
            (true, Some(faulty)) if faulty == seat => {
                if let Some(id) = self.pending_id.filter(|&id| d.id != Some(id)) {
                    return Err(format!(
                        "the fallback move's request id is not its fault's, {id}"
                    ));
                }
                if mv != self.legal[0] {
                    return Err(format!(
                        "a fallback move is the first legal move, {}, not this one",
                        self.legal[0].tile
                    ));
                }
            }
            (true, _) => {
                return Err(format!(
                    "the move is marked fallback, but no fault of seat {seat} comes before it"
                ));
            }
            (false, Some(_)) => return Err(self.unfollowed_fault()),
            (false, None) => {}
        }
        let asked = !d.forced;
        let timed = asked && !d.fallback;
        if d.time_us.is_some() != timed {
            return Err(match timed {
                true => "a move the bot chose must carry its thinking time (time_us)".into(),
                false => "only a move the bot chose carries a thinking time (time_us)".into(),
            });
        }
        if let Some(info) = &d.info {
            if !timed {
                return Err("only a move the bot chose carries its info".into());
            }
            if info.clone().capped() != *info {
                return Err(format!(
                    "the move's info is over the cap of {MAX_INFO} bytes, which the referee cuts"
                ));
            }
        }
        let clock = self.replay.header.clock;
        let limit_ms = clock.move_ms.saturating_add(clock.bank_ms);
        let limit_us = limit_ms.saturating_mul(1000);
        if let Some(t) = d.time_us.filter(|&t| t > limit_us) {
            return Err(format!(
                "seat {seat} took {:.3} ms, over its limit of {limit_ms} ms, yet no fault is logged",
                t as f64 / 1000.0,
            ));
        }
        // Time over the per-move limit is drawn from a bank that lasts the game.
        let over = d
            .time_us
            .map_or(0, |t| t.saturating_sub(clock.move_ms.saturating_mul(1000)));
        self.bank_used_us[seat] = self.bank_used_us[seat].saturating_add(over);
        if self.bank_used_us[seat] > clock.bank_ms.saturating_mul(1000) {
            return Err(format!(
                "seat {seat}'s moves drew {:.3} ms from its bank of {} ms over the game, yet no \
                 fault is logged",
                self.bank_used_us[seat] as f64 / 1000.0,
                clock.bank_ms
            ));
        }
        match (format > 1 && asked, d.id) {
            (true, Some(id)) if id > self.last_ids[seat] => self.last_ids[seat] = id,
            (true, Some(id)) => {
                return Err(format!(
                    "request id {id} does not follow seat {seat}'s last, {}: a bot's ids grow",
                    self.last_ids[seat]
                ));
            }
            (true, None) => return Err("the move lacks the id of the bot's turn request".into()),
            (false, Some(_)) => {
                return Err("only a move the bot was asked for carries a request id".into());
            }
            (false, None) => {}
        }
        Ok(())
    }

    fn unfollowed_fault(&self) -> String {
        let seat = self.pending.unwrap_or_default();
        format!("seat {seat}'s fault did not cost the game, so its fallback move must come next")
    }

    fn fault(&mut self, fault: SeatFault) -> Result<(), String> {
        let header = &self.replay.header;
        let seat = fault.seat;
        if seat >= header.rules.players {
            return Err(format!(
                "a fault of seat {seat}, but the game has {} seats",
                header.rules.players
            ));
        }
        if self.pending.is_some() {
            return Err(self.unfollowed_fault());
        }
        let game = &self.replay.game;
        let started = game.hand_number() > 0;
        if let Some(lost) = self.forfeited.first().filter(|_| started) {
            return Err(format!(
                "a fault after seat {lost}'s fault cost it the game"
            ));
        }
        if started {
            match game.status() {
                Status::ToPlay { seat: turn } if turn == seat => {}
                Status::ToPlay { seat: turn } => {
                    return Err(format!(
                        "a fault of seat {seat} while seat {turn} is on move"
                    ));
                }
                _ => return Err(format!("a fault of seat {seat} while no one is on move")),
            }
            if let Some(missing) = game.events_since(self.checked).first() {
                return Err(format!(
                    "a fault logged before \"{}\", which the log leaves out",
                    describe::event(missing)
                ));
            }
        }
        check_record(&fault, started.then_some(game))?;
        if !started && self.fault_counts[seat] > 0 {
            return Err(format!(
                "a second fault of seat {seat} before the first deal: the referee logs one, for \
                 a bot that did not start"
            ));
        }
        match (started, fault.id) {
            (false, Some(_)) => {
                return Err("a fault before the first deal carries a turn's request id".into());
            }
            (true, Some(id)) if id <= self.last_ids[seat] => {
                return Err(format!(
                    "request id {id} does not follow seat {seat}'s last, {}: a bot's ids grow",
                    self.last_ids[seat]
                ));
            }
            _ => {}
        }
        self.fault_counts[seat] += 1;
        let count = self.fault_counts[seat];
        let costs = match (started, header.on_fault.as_str(), header.max_faults) {
            (false, _, _) => Some(true),
            (_, "forfeit", _) => Some(true),
            _ if fault.fault.kind.is_fatal() => Some(true),
            (_, _, Some(max)) => Some(count >= max),
            // Format 1 does not say how many faults a fallback game allows.
            (_, _, None) => None,
        };
        if let Some(costs) = costs.filter(|&c| c != fault.forfeit) {
            return Err(format!(
                "seat {seat}'s fault ({}) is marked forfeit: {}, but under the header's fault policy it {} the game",
                fault.fault.kind,
                fault.forfeit,
                if costs { "costs" } else { "does not cost" }
            ));
        }
        match fault.forfeit {
            true => self.forfeited.push(seat),
            false => (self.pending, self.pending_id) = (Some(seat), fault.id),
        }
        self.replay.faults.push(LoggedFault {
            after: game.event_count(),
            fault,
        });
        Ok(())
    }

    /// Checks a bot's stderr lines: logged when it has answered, before its move (or fault),
    /// with that turn's id, within the caps.
    fn stderr(&mut self, record: StderrRecord) -> Result<(), String> {
        let seat = record.seat;
        let game = &self.replay.game;
        match game.status() {
            Status::ToPlay { seat: turn } if turn == seat && game.hand_number() > 0 => {}
            _ => return Err(format!("stderr lines of seat {seat}, which is not on move")),
        }
        if record.id <= self.last_ids.get(seat).copied().unwrap_or(0) {
            return Err(format!(
                "stderr lines for request id {}, which seat {seat} has answered already",
                record.id
            ));
        }
        let logged = self.stderr_counts[seat] + record.lines.len();
        if record.lines.is_empty() || logged > MAX_LINES + 1 {
            return Err(format!(
                "{} of seat {seat}'s stderr, where the referee logs 1 to {MAX_LINES} a game",
                describe::count(logged as u64, "line")
            ));
        }
        if let Some(line) = record
            .lines
            .iter()
            .find(|l| l.chars().count() > MAX_LINE_CHARS + 1)
        {
            return Err(format!(
                "a stderr line of {} characters, over the cap of {MAX_LINE_CHARS}",
                line.chars().count()
            ));
        }
        self.stderr_counts[seat] = logged;
        self.replay.stderr.push(LoggedStderr {
            after: game.event_count(),
            record,
        });
        Ok(())
    }

    fn game_end(&mut self, end: GameEnd) -> Result<(), String> {
        if self.pending.is_some() {
            return Err(self.unfollowed_fault());
        }
        let costly: Vec<&SeatFault> = self
            .replay
            .faults
            .iter()
            .map(|f| &f.fault)
            .filter(|f| f.forfeit)
            .collect();
        if end.forfeits.iter().ne(costly.iter().copied()) {
            return Err(match (end.forfeits.first(), costly.first()) {
                (Some(f), None) => format!(
                    "the game end says seat {}'s fault cost the game, but no such fault is logged",
                    f.seat
                ),
                (None, Some(f)) => format!(
                    "seat {}'s logged fault cost the game, but the game end lists no forfeit",
                    f.seat
                ),
                _ => "the game end's forfeits are not the faults logged as costing the game".into(),
            });
        }
        let game = &mut self.replay.game;
        if game.result().is_none() {
            game.forfeit_seats(&self.forfeited)
                .map_err(|e| e.to_string())?;
        }
        if let Some(missing) = game
            .events_since(self.checked)
            .first()
            .filter(|e| !matches!(e, Event::GameEnd(_)))
        {
            return Err(format!(
                "the game ends before \"{}\", which the log leaves out",
                describe::event(missing)
            ));
        }
        match game.result() {
            Some(result) if *result == end.result => {
                self.replay.end = Some(end);
                Ok(())
            }
            Some(result) => Err(format!(
                "the log's result is \"{}\" where the engine's is \"{}\"",
                describe::result(&end.result),
                describe::result(result)
            )),
            None => Err(match game.status() {
                Status::ToPlay { seat } => {
                    format!("the game ends in the log, but the engine has seat {seat} on move")
                }
                _ => "the game ends in the log, but the engine expects another hand".into(),
            }),
        }
    }
}

/// Checks a fault's record against what the referee writes for its kind: an input cut to
/// [`EXCERPT`] characters; none for a crash (a process that ended wrote nothing to quote); the
/// line for `too_long` and `wrong_id`; for `illegal`, the move the engine refused in `game`
/// (`None` before the first deal, where no move was asked for); a move's info (capped) only
/// where the bot's answer was a move: `illegal`, or a `timeout` that came late.
fn check_record(f: &SeatFault, game: Option<&Game>) -> Result<(), String> {
    let kind = f.fault.kind;
    let input = f.fault.input.as_deref();
    if let Some(long) = input.map(|i| i.chars().count()).filter(|&n| n > EXCERPT) {
        return Err(format!(
            "the fault's input is {long} characters long; the referee keeps at most {EXCERPT}"
        ));
    }
    if f.fault.refused.is_some() && kind != FaultKind::Illegal {
        return Err(format!(
            "a {kind} fault names a move refused, which only an illegal fault does"
        ));
    }
    if let Some(info) = &f.fault.info {
        if !matches!(kind, FaultKind::Illegal | FaultKind::Timeout) {
            return Err(format!(
                "a {kind} fault carries a move's info, which only an illegal or a late move has"
            ));
        }
        if info.clone().capped() != *info {
            return Err(format!(
                "the fault's info is over the cap of {MAX_INFO} bytes, which the referee cuts"
            ));
        }
    }
    match (kind, input) {
        (FaultKind::Crash, Some(_)) => Err(
            "a crash fault quotes an input, but the referee quotes none for a process that ended"
                .into(),
        ),
        (FaultKind::TooLong | FaultKind::WrongId, None) => Err(format!(
            "a {kind} fault without its input: the referee quotes the line it is about"
        )),
        (FaultKind::Illegal, _) => illegal_record(f, game),
        _ => Ok(()),
    }
}

/// An `illegal` fault names the move the engine refused: in its `move` (its `input` is then the
/// line the bot wrote), or in logs written before `move`, as its `input`.
fn illegal_record(f: &SeatFault, game: Option<&Game>) -> Result<(), String> {
    let Some(game) = game else {
        return Err("an illegal fault before the first deal, where no move was asked for".into());
    };
    let input = f.fault.input.as_deref().unwrap_or_default();
    let mv: Move = match f.fault.refused {
        Some(mv) => mv,
        None => serde_json::from_str(input).map_err(|_| {
            format!(
                "an illegal fault names no move refused (move), and its input \"{input}\" is not one"
            )
        })?,
    };
    match game.check(f.seat, mv) {
        Err(_) => Ok(()),
        Ok(_) => Err(format!(
            "an illegal fault, but its move ({}) is legal for seat {} here",
            serde_json::to_string(&mv).unwrap_or_default(),
            f.seat
        )),
    }
}

/// Reads an engine event line with its decision, exactly as the referee writes it.
fn strict_event(value: &Value, kind: &str) -> Result<Logged, String> {
    let logged: Logged =
        serde_json::from_value(value.clone()).map_err(|e| format!("not a valid {kind}: {e}"))?;
    let mut canonical = serde_json::to_value(&logged.event).map_err(|e| e.to_string())?;
    let decision = serde_json::to_value(&logged.decision).map_err(|e| e.to_string())?;
    if let (Value::Object(line), Value::Object(fields)) = (&mut canonical, decision) {
        line.extend(fields);
    }
    if !matches!(logged.event, Event::Play(_)) && logged.decision != Decision::default() {
        return Err(format!("a {kind} line carries a move's decision fields"));
    }
    match difference(value, &canonical, "") {
        None => Ok(logged),
        Some(why) => Err(format!("not a {kind} as the referee writes it: {why}")),
    }
}

/// Says how a logged event differs from the engine's: in words, and when the words are the
/// same (a field they leave out, as a hand end's `next_leader`), by the field.
fn event_difference(logged: &Event, engine: &Event) -> String {
    let (said, expected) = (describe::event(logged), describe::event(engine));
    let field = match (serde_json::to_value(logged), serde_json::to_value(engine)) {
        (Ok(l), Ok(e)) => difference(&l, &e, ""),
        _ => None,
    };
    match field {
        Some(field) if said == expected => {
            format!("the log has \"{said}\" as the engine does, but {field} by the engine")
        }
        _ => format!("the log has \"{said}\" where the engine has \"{expected}\""),
    }
}

/// Says how a logged deal differs from the one the seed gives.
fn deal_difference(hand: u32, seed: u64, drawn: &Deal, logged: &Deal) -> String {
    let what = drawn
        .hands
        .iter()
        .zip(&logged.hands)
        .position(|(d, l)| d != l)
        .map(|seat| {
            format!(
                "seat {seat} holds {} in the log but {} from the seed",
                describe::tiles(&logged.hands[seat]),
                describe::tiles(&drawn.hands[seat])
            )
        })
        .or_else(|| {
            (drawn.boneyard != logged.boneyard).then(|| {
                format!(
                    "the boneyard is {} in the log but {} from the seed",
                    describe::tiles(&logged.boneyard),
                    describe::tiles(&drawn.boneyard)
                )
            })
        })
        .unwrap_or_else(|| {
            format!(
                "seat {} leads in the log but seat {} from the seed",
                logged.leader, drawn.leader
            )
        });
    format!("hand {hand} was drawn from seed {seed}, but not this deal: {what}")
}
