//! A verified game as steps: after each event (and each fault), the whole table as it stood,
//! and the same cut down to what one seat saw. The text, JSON and HTML replays all read these.

use serde::Serialize;
use serde_json::{Value, json};

use crate::gamelog::describe;
use crate::gamelog::{Decision, GameEnd, LoggedFault, Replay, StderrRecord};
use crate::replay::drawing::{Drawing, draw};
use allfives_engine::game::{Event, Game, Move, Play};
use allfives_engine::layout::{Layout, OpenEnd};
use allfives_engine::rules::Seat;
use allfives_engine::tile::Tile;
use allfives_engine::view::Choice;

/// The table after one event or fault.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The hand's number (0 before the first deal).
    pub hand: u32,
    /// For a play: its number within the hand, from 1.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub move_number: Option<u32>,
    /// For a play the bot was asked for: its number among the game's decisions, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// The seat that acted, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// What happened: the engine's event, or `{"type":"fault", ...}`.
    pub event: Value,
    /// How a play was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// What happened, in words.
    pub says: String,
    /// The layout, drawn; `None` when the table is bare.
    pub layout: Option<Drawing>,
    /// The open ends.
    pub ends: Vec<OpenEnd>,
    /// The sum of the open ends.
    pub sum: u32,
    /// Each seat's tiles; `None` for tiles the viewer may not see.
    pub hands: Vec<Option<Vec<Tile>>>,
    /// How many tiles each seat holds.
    pub hand_sizes: Vec<usize>,
    /// The boneyard in drawing order; `None` when hidden.
    pub boneyard: Option<Vec<Tile>>,
    /// How many tiles the boneyard holds.
    pub boneyard_size: usize,
    /// Each side's score.
    pub scores: Vec<i32>,
    /// What the bot wrote on stderr while it decided this move (or faulted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
    /// At a decision: every move the bot could have made, with what each would have scored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub legal: Vec<Choice>,
}

/// What is said of a verified game besides its steps (`replay --json` and the page both hold it).
#[derive(Debug, Clone, Serialize)]
pub struct About {
    /// The log's header (without the seed in one seat's view: it gives every deal away).
    pub header: Value,
    /// The seat whose view this is, if it is one seat's.
    pub seat: Option<Seat>,
    /// Whether the log ends with the game's end.
    pub complete: bool,
    /// A last line cut off mid-way, if any.
    pub torn: Option<usize>,
    /// Whether every deal was checked against the seed (none came from a deal file).
    pub deals_checked: bool,
    /// Which deals were checked and how, in words.
    pub deals: String,
    /// The referee's last line, if the log is complete.
    pub end: Option<GameEnd>,
}

impl About {
    /// Each seat's bot name, seat 0 first.
    pub fn names(&self) -> Vec<String> {
        self.header["seats"]
            .as_array()
            .map(|seats| {
                seats
                    .iter()
                    .map(|s| s["bot"].as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The verified game as one document (`replay --json`).
#[derive(Debug, Clone, Serialize)]
pub struct Document {
    /// What is said of the game.
    #[serde(flatten)]
    pub about: About,
    /// Every step of the game.
    pub steps: Vec<Step>,
}

/// Tracks the table from event to event.
struct Table {
    layout: Layout,
    hands: Vec<Vec<Tile>>,
    boneyard: Vec<Tile>,
    scores: Vec<i32>,
    hand: u32,
    moves: u32,
    turns: u32,
}

/// The game's steps with every tile shown.
pub fn steps(replay: &Replay) -> Vec<Step> {
    let rules = replay.header.rules;
    let mut table = Table {
        layout: Layout::new(rules.spinner),
        hands: vec![Vec::new(); rules.players],
        boneyard: Vec::new(),
        scores: vec![0; rules.sides()],
        hand: 0,
        moves: 0,
        turns: 0,
    };
    let mut decisions = replay.decisions.iter().map(|(_, _, d)| d.clone());
    let mut faults = replay.faults.iter().peekable();
    let mut stderr = replay.stderr.iter().peekable();
    // Lines a bot wrote while deciding: they go with that decision's step.
    let mut said: Option<&StderrRecord> = None;
    let mut steps = Vec::new();
    // The engine alongside, for the moves a bot could have made at each decision.
    let mut legal = Legal::new(replay);
    for (index, event) in replay.events.iter().enumerate() {
        while let Some(s) = stderr.next_if(|s| s.after <= index) {
            said = Some(&s.record);
        }
        while let Some(f) = faults.next_if(|f| f.after <= index) {
            let mut step = with_lines(table.fault_step(f), &mut said);
            step.legal = legal.at(step.turn.is_some());
            steps.push(step);
        }
        let decision = match event {
            Event::Play(_) => decisions.next(),
            _ => None,
        };
        let mut step = table.apply(event, decision, &rules);
        step.legal = legal.at(step.turn.is_some());
        legal.follow(event);
        match step.turn {
            Some(_) => steps.push(with_lines(step, &mut said)),
            None => steps.push(step),
        }
    }
    if let Some(s) = stderr.last() {
        said = Some(&s.record);
    }
    for f in faults {
        let mut step = with_lines(table.fault_step(f), &mut said);
        step.legal = legal.at(step.turn.is_some());
        steps.push(step);
    }
    steps
}

/// The game replayed again beside the steps, to list the legal moves at each decision.
struct Legal {
    game: Option<Game>,
    moves: Vec<Move>,
    choices: Vec<Choice>,
}

impl Legal {
    fn new(replay: &Replay) -> Legal {
        Legal {
            // The rules were checked with the log: a game can be made of them.
            game: Game::new(replay.header.rules).ok(),
            moves: Vec::new(),
            choices: Vec::new(),
        }
    }

    /// The legal moves of the seat on move, with what each would score, at a decision.
    fn at(&mut self, decision: bool) -> Vec<Choice> {
        match (&self.game, decision) {
            (Some(game), true) => {
                game.legal_choices(&mut self.moves, &mut self.choices);
                self.choices.clone()
            }
            _ => Vec::new(),
        }
    }

    /// Feeds the engine the logged deals and plays (it makes the draws, passes and ends).
    fn follow(&mut self, event: &Event) {
        let Some(game) = &mut self.game else { return };
        // The log was verified against the engine: these cannot fail.
        match event {
            Event::HandStart { deal, .. } => {
                let _ = game.start_hand((**deal).clone());
            }
            Event::Play(play) => {
                let mv = Move {
                    tile: play.tile,
                    end: play.end,
                };
                let _ = game.play(play.seat, mv);
            }
            _ => {}
        }
    }
}

/// Gives a decision's step the lines its bot wrote while deciding, if they are its seat's.
fn with_lines(mut step: Step, said: &mut Option<&StderrRecord>) -> Step {
    if let Some(record) = said.take_if(|r| Some(r.seat) == step.seat) {
        step.stderr = record.lines.clone();
    }
    step
}

impl Table {
    fn apply(
        &mut self,
        event: &Event,
        decision: Option<Decision>,
        rules: &allfives_engine::Rules,
    ) -> Step {
        let (mut move_number, mut turn, mut seat) = (None, None, None);
        match event {
            Event::HandStart { hand, deal } => {
                self.layout = Layout::new(rules.spinner);
                self.hands = deal.hands.clone();
                self.boneyard = deal.boneyard.clone();
                self.hand = *hand;
                self.moves = 0;
            }
            Event::Play(Play {
                seat: by,
                tile,
                end,
                points,
                ..
            }) => {
                // The event was verified against the engine: the placement fits.
                let _ = self.layout.place(*tile, *end);
                self.hands[*by].retain(|t| t != tile);
                self.scores[rules.side_of(*by)] += *points as i32;
                self.moves += 1;
                move_number = Some(self.moves);
                if decision.as_ref().is_some_and(|d| !d.forced) {
                    self.turns += 1;
                    turn = Some(self.turns);
                }
                seat = Some(*by);
            }
            Event::Draw { seat: by, tile } => {
                self.hands[*by].push(*tile);
                self.boneyard.retain(|t| t != tile);
                seat = Some(*by);
            }
            Event::Pass { seat: by } => seat = Some(*by),
            Event::HandEnd(summary) => self.scores = summary.scores.clone(),
            Event::GameEnd(result) => self.scores = result.scores.clone(),
        }
        let mut step = self.snapshot(
            serde_json::to_value(event).unwrap_or(Value::Null),
            describe::event(event),
        );
        (step.move_number, step.turn, step.seat, step.decision) =
            (move_number, turn, seat, decision);
        step
    }

    /// A fault's step; a fault at a decision that cost the game ends that decision, so it is
    /// numbered as a turn (a fault the referee played on from is numbered with its move).
    fn fault_step(&mut self, logged: &LoggedFault) -> Step {
        let fault = &logged.fault;
        let mut event = serde_json::to_value(fault).unwrap_or(Value::Null);
        event["type"] = Value::from("fault");
        let cost = if fault.forfeit {
            "; it costs the game"
        } else {
            "; the referee plays for it"
        };
        let mut step = self.snapshot(
            event,
            format!("seat {} faults: {}{cost}", fault.seat, fault.fault),
        );
        step.seat = Some(fault.seat);
        if fault.forfeit && logged.after > 0 {
            self.turns += 1;
            step.turn = Some(self.turns);
        }
        step
    }

    fn snapshot(&self, event: Value, says: String) -> Step {
        let placements: Vec<_> = self.layout.placements().collect();
        Step {
            hand: self.hand,
            move_number: None,
            turn: None,
            seat: None,
            event,
            decision: None,
            says,
            layout: draw(&placements),
            ends: self.layout.open_ends().collect(),
            sum: self.layout.sum(),
            hands: self.hands.iter().cloned().map(Some).collect(),
            hand_sizes: self.hands.iter().map(Vec::len).collect(),
            boneyard: Some(self.boneyard.clone()),
            boneyard_size: self.boneyard.len(),
            scores: self.scores.clone(),
            stderr: Vec::new(),
            legal: Vec::new(),
        }
    }
}

/// The document of the whole verified game, every tile shown, or as `seat` saw it.
pub fn document(replay: &Replay, seat: Option<Seat>) -> Document {
    let mut header = serde_json::to_value(&replay.header).unwrap_or(Value::Null);
    let mut all = steps(replay);
    if let Some(seat) = seat {
        if let Value::Object(fields) = &mut header {
            fields.remove("seed");
        }
        // Bots are not told of each other's faults.
        all.retain(|step| step.event["type"] != "fault" || step.seat == Some(seat));
        all.iter_mut().for_each(|step| hide(step, seat));
        // The seat's own decisions, numbered as `--seat N --turn K` counts them.
        let mut own = 0;
        for step in all.iter_mut().filter(|s| s.turn.is_some()) {
            own += 1;
            step.turn = Some(own);
        }
    }
    Document {
        about: About {
            header,
            seat,
            complete: replay.end.is_some(),
            torn: replay.torn,
            deals_checked: replay.deals_checked(),
            deals: replay.deals_said(),
            end: replay.end.clone(),
        },
        steps: all,
    }
}

/// Cuts a step down to what `seat` saw: its own tiles, the others' counts, no boneyard, no
/// other seat's drawn tile or thinking time. A hand's end shows every hand, as the protocol does.
fn hide(step: &mut Step, seat: Seat) {
    step.boneyard = None;
    if step.seat != Some(seat) {
        // How another bot decided (its thinking time, its info, what it wrote on stderr) is
        // not the seat's to know either.
        (step.decision, step.turn, step.stderr) = (None, None, Vec::new());
        step.legal.clear();
    }
    for (s, hand) in step.hands.iter_mut().enumerate() {
        if s != seat {
            *hand = None;
        }
    }
    match step.event["type"].as_str() {
        Some("hand_start") => {
            let leader = step.event["deal"]["leader"].clone();
            step.event = json!({"type": "hand_start", "hand": step.hand, "leader": leader});
            step.says = format!("hand {} dealt, seat {leader} leads", step.hand);
        }
        Some("draw") if step.seat != Some(seat) => {
            step.event["tile"] = Value::Null;
            step.says = format!("seat {} draws a tile", step.seat.unwrap_or_default());
        }
        _ => {}
    }
}
