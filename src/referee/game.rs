//! The referee of one game: it deals, asks each seat's player for its moves within the clock,
//! enforces the rules through the engine, tells every player what its seat may see, handles
//! faults, and logs everything.

use crate::referee::bot_seed::bot_seed;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde::Serialize;

use crate::bot::clock::{Clock, Clocks};
use crate::bot::fault::{Fault, FaultKind};
use crate::bot::player::{Answered, Player, Stop, encode};
use crate::gamelog::{
    Decision, GameEnd, GameLog, Header, LOG_FORMAT, SeatFault, SeatInfo, StderrRecord,
};
use allfives_engine::deal::Deal;
use allfives_engine::game::{Event, Game, GameResult, Move, Status};
use allfives_engine::json::{TurnWriter, write_event_message, write_hand_end, write_hand_start};
use allfives_engine::protocol::{PROTOCOL_VERSION, ToBot};
use allfives_engine::rules::{Rules, Seat};
use allfives_engine::view::Seen;

use crate::bot::lifetime::{Dealt, Processes};
use crate::sandbox::Protections;

/// What the referee does when a bot faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case")]
pub enum FaultPolicy {
    /// The bot forfeits the game at its first fault.
    Forfeit,
    /// The referee plays the first legal move for it, and it forfeits at its `max_faults`-th
    /// fault of a game (or at once if its process died).
    Fallback {
        /// Faults a game that cost the game.
        max_faults: u32,
    },
}

impl FaultPolicy {
    fn name(&self) -> &'static str {
        match self {
            FaultPolicy::Forfeit => "forfeit",
            FaultPolicy::Fallback { .. } => "fallback",
        }
    }
}

/// One game to play.
#[derive(Debug, Clone)]
pub struct GameSetup {
    /// The game's number in the match, from 1.
    pub number: u32,
    /// The seed of its deals.
    pub seed: u64,
    /// The rules.
    pub rules: Rules,
    /// For each seat, the index of its player.
    pub seating: Vec<usize>,
    /// The time controls.
    pub clocks: Clocks,
    /// The fault policy.
    pub on_fault: FaultPolicy,
    /// The protections bots are under, for the log's header.
    pub protections: Option<Protections>,
    /// Deals for the first hands, instead of random ones.
    pub deals: Arc<[Deal]>,
    /// Its seat arrangement's index: by default each arrangement has a process of its own.
    pub arrangement: usize,
    /// How long a bot's process lives: by default one never plays a deal it has seen.
    pub processes: Processes,
    /// The seed is public (`--public-seed`): a bot that guesses it can compute the deals.
    pub public_seed: bool,
}

/// What a game came to.
#[derive(Debug, Clone, Serialize)]
pub struct GameRecord {
    /// The game's number in the match.
    pub game: u32,
    /// The seed of its deals.
    pub seed: u64,
    /// For each seat, the index of its bot in the match.
    pub seating: Vec<usize>,
    /// The engine's result.
    #[serde(flatten)]
    pub result: GameResult,
    /// The fault that cost the game, if one did (also listed in `faults`).
    pub forfeit: Option<SeatFault>,
    /// Every fault, with its seat.
    pub faults: Vec<SeatFault>,
    /// The log file, if any.
    pub log: Option<String>,
}

/// Plays one game between `players` seated as `setup.seating` says.
pub async fn play_game(
    setup: &GameSetup,
    players: &mut [Player],
    log: &mut GameLog,
) -> io::Result<GameRecord> {
    let mut game = Game::new(setup.rules)
        .map_err(io::Error::other)?
        .numbered(setup.number);
    log.header(header(setup, players))?;
    // Builtins are never waited on: a game between them is written in one go at its end.
    if setup.seating.iter().any(|&p| players[p].spec.is_process()) {
        log.flush()?;
    }
    let mut table = Table {
        setup,
        players,
        log,
        faults: Vec::new(),
        fault_counts: vec![0; setup.rules.players],
        asked: 0,
        logged: 0,
        decision: Decision::default(),
        turns: TurnWriter::new(),
        line: Vec::with_capacity(512),
    };
    table.start(&mut game).await?;
    table.run(&mut game).await?;
    let result = game
        .result()
        .expect("run() returns only when the game is over")
        .clone();
    let forfeits: Vec<SeatFault> = table.faults.iter().filter(|f| f.forfeit).cloned().collect();
    table.log.game_end(&GameEnd {
        result: result.clone(),
        forfeits: forfeits.clone(),
    })?;
    table.flush_all().await;
    Ok(GameRecord {
        game: setup.number,
        seed: setup.seed,
        seating: setup.seating.clone(),
        result,
        forfeit: forfeits.into_iter().next(),
        faults: table.faults,
        log: table.log.path().map(|p| p.display().to_string()),
    })
}

fn header(setup: &GameSetup, players: &[Player]) -> Header {
    Header {
        format: LOG_FORMAT,
        referee: format!("allfives {}", env!("CARGO_PKG_VERSION")),
        protocol: PROTOCOL_VERSION,
        game: setup.number,
        seed: setup.seed,
        rules: setup.rules,
        seats: setup
            .seating
            .iter()
            .map(|&p| SeatInfo {
                bot: players[p].spec.name.clone(),
                command: players[p].spec.command.clone(),
            })
            .collect(),
        clock: setup.clocks.info(),
        clock_kind: setup.clocks.kind,
        on_fault: setup.on_fault.name().to_string(),
        max_faults: match setup.on_fault {
            FaultPolicy::Forfeit => None,
            FaultPolicy::Fallback { max_faults } => Some(max_faults),
        },
        deal_file_hands: Some(setup.deals.len() as u32),
        sandbox: setup.protections.clone(),
        processes: setup
            .seating
            .iter()
            .any(|&p| players[p].spec.is_process())
            .then_some(setup.processes),
        public_seed: setup.public_seed,
    }
}

/// The game's surroundings while it is played.
struct Table<'a> {
    setup: &'a GameSetup,
    players: &'a mut [Player],
    log: &'a mut GameLog,
    faults: Vec<SeatFault>,
    fault_counts: Vec<u32>,
    /// How many times a bot was asked for a move so far (`replay --turn` numbers them so).
    asked: u32,
    /// How many of the engine's events have been logged and told.
    logged: usize,
    /// How the last move was decided, for its log line.
    decision: Decision,
    /// Writes the bots' turns.
    turns: TurnWriter,
    /// An event's line, when it is the same for every seat: written once, queued to each.
    line: Vec<u8>,
}

impl Table<'_> {
    /// Starts every seat's player and tells it the game begins; a player that cannot start
    /// forfeits.
    async fn start(&mut self, game: &mut Game) -> io::Result<()> {
        let mut failed = Vec::new();
        let dealt = Dealt::of_game(self.setup.seed, &self.setup.deals);
        // Only this lifetime reads what a process was dealt: the others keep no list of it.
        let unseen = self.setup.processes == Processes::UnseenDeals;
        for seat in 0..self.setup.rules.players {
            let player = &mut self.players[self.setup.seating[seat]];
            if unseen {
                player.take_up(self.setup.arrangement).await;
            }
            // Never in normal play: the process of an arrangement sees each deal once, except
            // where arrangements share one (beyond KEPT_PROCESSES) or a deal file deals the
            // same hands in every game.
            if unseen && player.has_seen(&dealt) {
                // It held a hand of this deal in another seat: a new process remembers nothing.
                tracing::debug!(bot = %player.spec.name, seat, "restarted before a deal it has seen");
                player.stop(Stop::Politely(GRACE)).await;
            }
            player.new_game_lines();
            match player.start(&self.setup.clocks).await {
                Ok(()) if unseen => player.remember(&dealt),
                Ok(()) => {}
                Err(fault) => failed.push((seat, fault)),
            }
        }
        let names: Vec<String> = self
            .setup
            .seating
            .iter()
            .map(|&p| self.players[p].spec.name.clone())
            .collect();
        for (seat, &p) in self.setup.seating.iter().enumerate() {
            self.players[p].queue(&encode(&ToBot::GameStart {
                game: self.setup.number,
                seat,
                rules: self.setup.rules,
                players: names.clone(),
                clock: self.setup.clocks.info(),
                bot_seed: Some(bot_seed(self.setup.seed, seat)),
            }));
        }
        // Every bot that runs hears of the game before it hears of its end; all that failed
        // to start forfeit together, each ranked below every bot that started.
        let mut forfeits = Vec::new();
        for (seat, fault) in failed {
            self.fault(seat, fault, None).await?;
            forfeits.push(seat);
        }
        game.forfeit_seats(&forfeits).map_err(io::Error::other)
    }

    async fn run(&mut self, game: &mut Game) -> io::Result<()> {
        let mut clocks: Vec<Clock> = (0..self.setup.rules.players)
            .map(|_| self.setup.clocks.start_game())
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.setup.seed);
        let mut fixed = self.setup.deals.iter();
        let mut legal = Vec::new();
        loop {
            self.tell(game)?;
            match game.status() {
                Status::Over(_) => return Ok(()),
                Status::Dealing { leader } => deal(game, fixed.next(), leader, &mut rng)?,
                Status::ToPlay { seat } => {
                    game.legal_moves(&mut legal);
                    self.turn(game, seat, &legal, &mut clocks[seat]).await?;
                }
            }
        }
    }

    /// One seat's turn: a move with no real alternative is played for it; otherwise its player is
    /// asked.
    async fn turn(
        &mut self,
        game: &mut Game,
        seat: Seat,
        legal: &[Move],
        clock: &mut Clock,
    ) -> io::Result<()> {
        // One move, or moves that mirror each other: no real choice, so no question.
        if game.choices(legal) == 1 {
            self.decision = Decision {
                forced: true,
                ..Decision::default()
            };
            return play(game, seat, legal[0]);
        }
        self.asked += 1;
        let player = &mut self.players[self.setup.seating[seat]];
        let id = Some(player.next_request_id());
        // The log's lines go out while the bot is waited on, once they are due (gamelog::writer).
        let answer = player
            .ask(game, seat, &mut self.turns, clock, &mut *self.log)
            .await;
        let lines = player.stderr_lines();
        if let Some(id) = id {
            self.log.stderr(StderrRecord { seat, id, lines })?;
        }
        let fault = match answer {
            Ok(Answered {
                mv,
                took,
                info,
                line,
            }) => match game.play(seat, mv) {
                Ok(_) => {
                    self.decision = Decision {
                        time_us: Some(took.as_micros() as u64),
                        id,
                        info,
                        ..Decision::default()
                    };
                    return Ok(());
                }
                // What the bot wrote is kept as it wrote it, the move refused beside it.
                Err(e) => Fault {
                    refused: Some(mv),
                    ..Fault::of_answer(FaultKind::Illegal, e.to_string(), &line, info)
                },
            },
            Err(fault) => fault,
        };
        if self.fault(seat, fault, id).await? {
            game.forfeit(seat).map_err(io::Error::other)?;
        } else {
            self.decision = Decision {
                fallback: true,
                id,
                ..Decision::default()
            };
            play(game, seat, legal[0])?;
        }
        Ok(())
    }

    /// Records a fault (at the turn request `id`, or while starting when `None`, which always
    /// forfeits) and applies the policy: a forfeit kills the process. Returns whether it costs
    /// the game (the caller ends it).
    async fn fault(&mut self, seat: Seat, fault: Fault, id: Option<u64>) -> io::Result<bool> {
        let player = &mut self.players[self.setup.seating[seat]];
        player.stats.faulted(fault.kind);
        self.fault_counts[seat] += 1;
        let forfeit = id.is_none()
            || fault.kind.is_fatal()
            || match self.setup.on_fault {
                FaultPolicy::Forfeit => true,
                FaultPolicy::Fallback { max_faults } => self.fault_counts[seat] >= max_faults,
            };
        tracing::debug!(seat, %fault, forfeit, "bot fault");
        let record = SeatFault {
            seat,
            fault,
            forfeit,
            id,
            turn: id.map(|_| self.asked),
        };
        self.log.fault(&record)?;
        self.log.flush()?;
        self.faults.push(record);
        if forfeit {
            player.stop(Stop::Kill).await;
        }
        Ok(forfeit)
    }

    /// Logs the engine's new events and tells each player what its seat may see of them.
    fn tell(&mut self, game: &Game) -> io::Result<()> {
        let new = game.events_since(self.logged);
        self.logged = game.event_count();
        for event in new {
            if !matches!(event, Event::GameEnd(_)) {
                let decision = match event {
                    Event::Play(_) => std::mem::take(&mut self.decision),
                    _ => Decision::default(),
                };
                self.log.event(event, &decision)?;
            }
            self.broadcast(event);
        }
        Ok(())
    }

    /// Queues for each listening player what its seat may see of `event`.
    fn broadcast(&mut self, event: &Event) {
        let seating = &self.setup.seating;
        if let Event::HandStart { .. } | Event::Draw { .. } = event {
            for (seat, &p) in seating.iter().enumerate() {
                self.players[p].queue_with(|line| told(event, seat, line));
            }
            return;
        }
        if !seating.iter().any(|&p| self.players[p].listens()) {
            return;
        }
        self.line.clear();
        told(event, 0, &mut self.line);
        for &p in seating {
            self.players[p].queue(&self.line);
        }
    }

    /// Delivers what is still queued for every player, at the end of a game.
    async fn flush_all(&mut self) {
        for &p in &self.setup.seating {
            self.players[p].flush(GRACE).await;
        }
    }
}

/// Appends the line that tells `seat` of `event`, as much of it as the seat may see (nothing
/// for an event it does not see).
pub fn told(event: &Event, seat: Seat, line: &mut Vec<u8>) {
    match event {
        Event::HandStart { hand, deal } => write_hand_start(*hand, deal, seat, line),
        Event::HandEnd(summary) => write_hand_end(summary, line),
        Event::GameEnd(result) => line.extend_from_slice(&encode(&ToBot::GameEnd {
            result: (**result).clone(),
        })),
        _ => {
            if let Some(seen) = Seen::of(event, seat) {
                write_event_message(&seen, line);
            }
        }
    }
}

fn deal(
    game: &mut Game,
    fixed: Option<&Deal>,
    leader: Option<Seat>,
    rng: &mut ChaCha8Rng,
) -> io::Result<()> {
    let result = match fixed {
        Some(deal) => {
            // A deal file's leader stands only where the rules would draw one at random.
            let mut deal = deal.clone();
            deal.leader = leader.unwrap_or(deal.leader);
            game.start_hand(deal)
        }
        None => game.deal(rng),
    };
    result.map_err(io::Error::other)
}

fn play(game: &mut Game, seat: Seat, mv: Move) -> io::Result<()> {
    game.play(seat, mv)
        .map(|_| ())
        .map_err(|e| io::Error::other(format!("the engine refused its own legal move: {e}")))
}

/// The grace a bot gets between each step of a polite shutdown.
pub const GRACE: Duration = Duration::from_millis(500);
