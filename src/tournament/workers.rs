//! Workers: games played at once on every core. Each worker takes the next game of its queue
//! (the whole schedule's, or only its own deals': [`affinity`](crate::tournament::affinity)),
//! keeps its bots' processes for its next games with the same entrants (those of the groups it
//! played last, as many as [`KEPT_PROCESSES`] a bot allows, held while it plays
//! another group: [`Player::rest`](crate::bot::player::Player::rest)), and hands each
//! finished game, as a results line already written out, to the collector. Each worker packs
//! (compresses) and digests its own games' logs: the collector only appends and syncs. Workers
//! never print.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::Sender;

use crate::bot::lifetime::Processes;
use crate::bot::player::{BotSpec, KEPT_PROCESSES, Player};
use crate::gamelog::GameLog;
use crate::gamelog::pack::{Frame, PackWriter};
use crate::placement::Placement;
use crate::referee::matchplay::{
    GameSettings, PlannedGame, Played, play_planned, player, stop_all,
};
use crate::sandbox::{Policy, files};
use crate::text;
use crate::tournament::definition::Definition;
use crate::tournament::digest;
use crate::tournament::game_logs;
use crate::tournament::results::{self, Entrant, Finished, GameLine, LineContext};
use crate::tournament::schedule::GamePlan;

/// What every worker shares.
#[derive(Debug)]
pub struct Run {
    /// The entrants as bots, by index.
    pub bots: Vec<BotSpec>,
    /// The entrants as results name them.
    pub entrants: Vec<Entrant>,
    /// How every game is played.
    pub settings: GameSettings,
    /// The tournament's folder.
    pub dir: PathBuf,
    /// The tournament's definition, whose digest each results line carries.
    pub definition: Definition,
}

/// The games still to hand out.
pub type Queue = Arc<Mutex<Box<dyn Iterator<Item = GamePlan> + Send>>>;

/// The running workers. Each has a thread of its own with its own single-threaded runtime:
/// a worker waits for its bots' answers in blocking calls (see [`crate::bot::process`]), which
/// then hold up no other worker's game, so no bot is ever charged for another game's wait.
pub struct Workers {
    threads: Vec<std::thread::JoinHandle<()>>,
    abort: tokio::sync::watch::Sender<bool>,
}

impl Workers {
    /// Stops every worker at once: their games are dropped and their bots killed.
    pub fn abort_all(&self) {
        self.abort.send_replace(true);
    }

    /// Waits until every worker has ended.
    pub async fn join(self) {
        let threads = self.threads;
        let _ = tokio::task::spawn_blocking(move || {
            threads.into_iter().for_each(|t| {
                let _ = t.join();
            })
        })
        .await;
    }
}

/// Starts a worker on each of `queues` (one shared queue, or a queue each: see
/// [`Sharing`](crate::tournament::affinity::Sharing)); each sends its finished games (or the
/// error that stopped it) to `results`, and stops taking games once `stop` is set. With
/// `placement` same-core, each worker holds a CPU of its own while there are free ones, and its
/// bots run there with it.
pub fn start(
    run: Arc<Run>,
    queues: Vec<Queue>,
    placement: Placement,
    stop: Arc<AtomicBool>,
    results: Sender<Result<Finished, String>>,
) -> std::io::Result<Workers> {
    let (abort, aborted) = tokio::sync::watch::channel(false);
    let mut threads = Vec::with_capacity(queues.len());
    for (index, queue) in queues.into_iter().enumerate() {
        let worker = Worker {
            index,
            policy: Arc::new(run.settings.sandbox.clone()),
            kept_groups: kept_groups(&run),
            run: run.clone(),
            groups: Vec::new(),
            pack: None,
        };
        let (stop, results) = (stop.clone(), results.clone());
        let mut aborted = aborted.clone();
        let thread = std::thread::Builder::new()
            .name(format!("worker {index}"))
            .spawn(move || {
                // Held for the worker's life; its bots, started from this thread, inherit it.
                let _cpu = placement.hold();
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = results
                            .blocking_send(Err(format!("cannot start a worker's runtime: {e}")));
                        return;
                    }
                };
                runtime.block_on(async move {
                    tokio::select! {
                        biased;
                        _ = aborted.wait_for(|&aborted| aborted) => {}
                        () = worker.work(queue, stop, results) => {}
                    }
                });
            });
        match thread {
            Ok(thread) => threads.push(thread),
            Err(e) => {
                // The workers already started stop with their bots.
                abort.send_replace(true);
                return Err(e);
            }
        }
    }
    Ok(Workers { threads, abort })
}

/// How many groups' players a worker keeps that share an entrant: each keeps a process for
/// each seat arrangement (up to [`KEPT_PROCESSES`]; one with `--reuse-processes`), and a bot
/// keeps at most [`KEPT_PROCESSES`] in a worker.
fn kept_groups(run: &Run) -> usize {
    let arrangements = match run.settings.processes {
        Processes::UnseenDeals => run.definition.schedule().set_size(),
        Processes::Reused | Processes::Fresh => 1,
    };
    (KEPT_PROCESSES / arrangements.clamp(1, KEPT_PROCESSES)).max(1)
}

/// One worker and the players of the groups it played last, the latest last.
struct Worker {
    index: usize,
    run: Arc<Run>,
    policy: Arc<Policy>,
    /// Groups that share an entrant kept at most.
    kept_groups: usize,
    groups: Vec<(Vec<usize>, Vec<Player>)>,
    /// Its pack, once it has packed a game (with `--pack-logs`).
    pack: Option<PackWriter>,
}

/// Where a played game's log was kept, and its digest.
struct KeptLog {
    /// Its file (or pack), relative to the folder.
    file: String,
    /// Its frame in the pack, when packed.
    frame: Option<Frame>,
    /// The SHA-256 of the log (uncompressed).
    sha256: String,
}

impl Worker {
    async fn work(
        mut self,
        queue: Queue,
        stop: Arc<AtomicBool>,
        results: Sender<Result<Finished, String>>,
    ) {
        while !stop.load(Ordering::SeqCst) {
            let next = queue.lock().map(|mut games| games.next()).unwrap_or(None);
            let Some(plan) = next else { break };
            let played = self.play(&plan).await;
            let failed = played.is_err();
            // A full channel holds the worker back: the games the collector has not yet taken
            // stay few, whatever each costs it.
            if results.send(played).await.is_err() || failed {
                break;
            }
        }
        for (_, players) in &mut self.groups {
            stop_all(players).await;
        }
    }

    /// Makes the players of `members` the last of [`groups`](Worker::groups): kept ones, or
    /// new ones, for which the groups that would give an entrant more than
    /// [`kept_groups`](Worker::kept_groups) are stopped, the latest first (a round robin
    /// plays its groups in the same order block after block, so the group played last is the
    /// one needed last again).
    async fn take_group(&mut self, members: &[usize]) -> Result<(), String> {
        if self.run.settings.processes == Processes::Fresh {
            for (_, mut players) in self.groups.drain(..) {
                stop_all(&mut players).await;
            }
        }
        let unseen = self.run.settings.processes == Processes::UnseenDeals;
        if let Some((group, players)) = self.groups.last_mut()
            && unseen
            && group != members
        {
            // Every group deals the same deals: the group left is held while another plays.
            for player in players {
                player.rest().await;
            }
        }
        if let Some(at) = self.groups.iter().position(|(group, _)| group == members) {
            let kept = self.groups.remove(at);
            self.groups.push(kept);
            return Ok(());
        }
        while let Some(at) = to_stop(
            self.groups.iter().map(|(g, _)| g),
            members,
            self.kept_groups,
        ) {
            let (_, mut players) = self.groups.remove(at);
            stop_all(&mut players).await;
        }
        let players = members
            .iter()
            .map(|&e| self.player(e))
            .collect::<std::io::Result<_>>()
            .map_err(|e| format!("cannot create a bot's stderr file: {e}"))?;
        self.groups.push((members.to_vec(), players));
        Ok(())
    }

    async fn play(&mut self, plan: &GamePlan) -> Result<Finished, String> {
        self.take_group(&plan.members).await?;
        let planned = PlannedGame {
            number: u32::try_from(plan.match_game).expect("a game number within a set"),
            seed: plan.seed,
            deal: plan.deal,
            arrangement: plan.arrangement,
            seating: plan.seating.clone(),
        };
        let failed = |e: std::io::Error| format!("game {} could not be logged: {e}", plan.id);
        let (played, kept) = match self.run.definition.pack_logs {
            true => self.play_packed(&planned).await,
            false => self.play_to_file(&planned, &plan.id).await,
        }
        .map_err(failed)?;
        let bots: Vec<&BotSpec> = plan.members.iter().map(|&e| &self.run.bots[e]).collect();
        let mut line = GameLine::new(
            &played.record,
            LineContext {
                id: &plan.id,
                game: plan.match_game,
                group: &plan.members,
                entrants: &self.run.entrants,
                deal: (plan.deal, plan.deal_seed, plan.arrangement),
                rules: &self.run.settings.rules,
                times: &played.times,
                probed: &played.probed,
                log: Some(kept.file),
                rerun: results::rerun(
                    &bots,
                    plan.deal_seed,
                    plan.match_game,
                    &self.run.settings,
                    None,
                ),
                reused_processes: self.run.settings.processes.is_reused(),
            },
        );
        line.definition = self.run.definition.digest_for(&plan.members);
        line.log_sha256 = Some(kept.sha256);
        line.log_offset = kept.frame.map(|f| f.offset);
        line.log_bytes = kept.frame.map(|f| f.bytes);
        // Written here, on the worker's own CPU: the results writer serves every worker.
        Finished::new(line).map_err(|e| format!("game {}'s results line: {e}", plan.id))
    }

    /// Plays a game logged to a file of its own.
    async fn play_to_file(
        &mut self,
        planned: &PlannedGame,
        id: &str,
    ) -> std::io::Result<(Played, KeptLog)> {
        let (relative, path, mut log) = new_log(&self.run.dir, id)?;
        let players = playing(&mut self.groups);
        let played = play_planned(&self.run.settings, planned, players, &mut log).await?;
        drop(log);
        // The results line counts the game only once its log is safely on disk; the sync and
        // the digest wait off the worker's thread.
        let sha256 = tokio::task::spawn_blocking(move || {
            File::open(&path).and_then(|f| f.sync_all())?;
            std::fs::read(&path).map(|bytes| digest::sha256_hex(&bytes))
        })
        .await
        .map_err(std::io::Error::other)??;
        let kept = KeptLog {
            file: relative,
            frame: None,
            sha256,
        };
        Ok((played, kept))
    }

    /// Plays a game logged in memory, then appended to the worker's pack as one frame.
    async fn play_packed(&mut self, planned: &PlannedGame) -> std::io::Result<(Played, KeptLog)> {
        let mut log = GameLog::in_memory();
        let players = playing(&mut self.groups);
        let played = play_planned(&self.run.settings, planned, players, &mut log).await?;
        let bytes = log.into_bytes();
        let file = game_logs::pack_name(self.index);
        let pack = match &mut self.pack {
            Some(pack) => pack,
            None => self
                .pack
                .insert(PackWriter::open(&self.run.dir.join(&file))?),
        };
        // Compressing and writing take a fraction of a builtin game, here on the worker's own
        // CPU; the sync is left to the results writer, once for every game finished meanwhile
        // (ResultsWriter::append), before any line names the frame.
        let frame = pack.append(&bytes)?;
        let sha256 = digest::sha256_hex(&bytes);
        let kept = KeptLog {
            file,
            frame: Some(frame),
            sha256,
        };
        Ok((played, kept))
    }

    /// A player for entrant `e`, its stderr in `stderr/NAME.wWORKER.stderr` (created once,
    /// then appended to, a resumed run's included).
    fn player(&self, e: usize) -> std::io::Result<Player> {
        let spec = &self.run.bots[e];
        let file = spec.is_process().then(|| {
            self.run.dir.join("stderr").join(format!(
                "{}.w{}.stderr",
                text::file_name(&spec.name),
                self.index
            ))
        });
        if let Some(file) = &file
            && !file.exists()
        {
            files::create_new(file)?;
        }
        Ok(player(spec, file, false, &self.run.settings, &self.policy))
    }
}

/// Which of the `kept` groups (the latest last) to stop before `members` join them, so that
/// no entrant is in more than `most` groups: the latest of those that share an entrant already
/// in `most`, or none.
fn to_stop<'a>(
    kept: impl DoubleEndedIterator<Item = &'a Vec<usize>> + ExactSizeIterator + Clone,
    members: &[usize],
    most: usize,
) -> Option<usize> {
    let full =
        |e: &usize| members.contains(e) && kept.clone().filter(|g| g.contains(e)).count() >= most;
    kept.clone().rposition(|group| group.iter().any(full))
}

/// The players of the group being played (the last taken).
fn playing(groups: &mut [(Vec<usize>, Vec<Player>)]) -> &mut [Player] {
    let (_, players) = groups.last_mut().expect("a group taken before its game");
    players
}

/// A new log for game `id`: `logs/ID.jsonl`, or, when a run cut short left one there (its game
/// never reached the results), `logs/ID.retry-N.jsonl`: nothing is overwritten.
fn new_log(dir: &Path, id: &str) -> std::io::Result<(String, PathBuf, GameLog)> {
    let stem = id.replace('/', "_");
    for n in 1u32.. {
        let relative = match n {
            1 => format!("logs/{stem}.jsonl"),
            _ => format!("logs/{stem}.retry-{n}.jsonl"),
        };
        let path = dir.join(&relative);
        match GameLog::create(&path) {
            Ok(log) => return Ok((relative, path, log)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!(
        "every log name of game {id} is taken"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round robin of 4 entrants in 2-player groups, 5 blocks of its 6 groups in the same
    /// order, with 2 groups an entrant: stopping the latest group keeps half of them from block
    /// to block (22 groups started: 88 starts of 2 bots and 2 arrangements), where stopping the
    /// oldest would keep none (30).
    #[test]
    fn a_worker_stops_the_group_it_played_latest() {
        let order = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
        let mut kept: Vec<Vec<usize>> = Vec::new();
        let mut started = 0;
        for members in order.iter().cycle().take(5 * order.len()) {
            if let Some(at) = kept.iter().position(|g| g == members) {
                let group = kept.remove(at);
                kept.push(group);
                continue;
            }
            while let Some(at) = to_stop(kept.iter(), members, 2) {
                kept.remove(at);
            }
            for e in members {
                assert!(kept.iter().filter(|g| g.contains(e)).count() < 2);
            }
            kept.push(members.to_vec());
            started += 1;
        }
        assert_eq!(started, 22);
        // 3 entrants: every group is kept.
        let three = [[0, 1], [0, 2], [1, 2]];
        let mut kept: Vec<Vec<usize>> = Vec::new();
        for members in three.iter().cycle().take(12) {
            if !kept.iter().any(|g| g == members) {
                assert_eq!(to_stop(kept.iter(), members, 2), None);
                kept.push(members.to_vec());
            }
        }
        assert_eq!(kept.len(), 3);
    }
}
