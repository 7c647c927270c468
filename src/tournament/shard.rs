//! Which slice of a tournament a run plays: `--shard I/N` typed, or `--shard auto` read from a
//! batch scheduler's array (Slurm's `SLURM_ARRAY_TASK_*`, Kubernetes Indexed Jobs'
//! `JOB_COMPLETION_INDEX`), so that one command serves every task of an array; and what a
//! shard that has nothing to play says. Pure: the environment comes in as a lookup.

use crate::text;
use crate::tournament::definition::Definition;

/// A shard asked for on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardAsk {
    /// `I/N`: slice I of N, numbered from 1.
    Given(u64, u64),
    /// `auto` or `auto/N`: the slice from the array's variables, N from the array or given.
    Auto(Option<u64>),
}

/// The variables `--shard auto` reads, for its refusals and docs.
pub const SLURM_TASK: &str = "SLURM_ARRAY_TASK_ID";
/// Kubernetes Indexed Jobs' index of a pod, from 0.
pub const KUBERNETES_INDEX: &str = "JOB_COMPLETION_INDEX";

/// What to do when an array's task numbers do not name a shard.
const RERUN_HINT: &str = "rerun a task with scontrol requeue JOB_TASK (it keeps its number), or submit the whole array again (finished shards play nothing)";

impl ShardAsk {
    /// Reads `I/N` (1 <= I <= N), `auto` or `auto/N`; the error is one sentence.
    pub fn parse(text: &str) -> Result<ShardAsk, String> {
        if text == "auto" {
            return Ok(ShardAsk::Auto(None));
        }
        let (i, n) = text.split_once('/').unwrap_or((text, ""));
        let count = n.parse::<u64>().ok().filter(|&n| n >= 1);
        match (i, count) {
            ("auto", Some(n)) => Ok(ShardAsk::Auto(Some(n))),
            ("0", Some(n)) => Err(format!(
                "shards are numbered from 1: '{text}' would be the first of {n} in an array numbered from 0; give --shard auto (it reads the array's numbering), or $((SLURM_ARRAY_TASK_ID + 1))/{n}"
            )),
            (i, Some(n)) => match i.parse::<u64>() {
                Ok(i) if (1..=n).contains(&i) => Ok(ShardAsk::Given(i, n)),
                _ => Err(format!(
                    "'{text}' is not I/N with 1 <= I <= N, auto or auto/N"
                )),
            },
            _ => Err(format!(
                "'{text}' is not I/N with 1 <= I <= N, auto or auto/N"
            )),
        }
    }

    /// The shard `(i, n)` this run plays, with where it came from (for a refusal of a folder
    /// holding another shard); `env` looks a variable up.
    pub fn resolve(
        self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<((u64, u64), Option<String>), String> {
        let count = match self {
            ShardAsk::Given(i, n) => return Ok(((i, n), None)),
            ShardAsk::Auto(count) => count,
        };
        if env(SLURM_TASK).is_some() {
            return slurm(&env, count);
        }
        let Some(index) = env(KUBERNETES_INDEX) else {
            return Err(format!(
                "--shard auto: neither {SLURM_TASK} (a Slurm job array) nor {KUBERNETES_INDEX} (a Kubernetes Indexed Job) is set: run it as a task of an array, or give --shard I/N"
            ));
        };
        let Some(n) = count else {
            return Err(format!(
                "--shard auto: {KUBERNETES_INDEX} gives the index but not the count: give --shard auto/N with N the Job's completions"
            ));
        };
        match index.trim().parse::<u64>() {
            Ok(index) if index < n => Ok((
                (index + 1, n),
                Some(format!("{KUBERNETES_INDEX} {index}, from 0")),
            )),
            _ => Err(format!(
                "--shard auto/{n}: {KUBERNETES_INDEX} is '{index}', not an index from 0 to {}",
                n - 1
            )),
        }
    }
}

/// A Slurm array task's shard: its number counted from the array's first, of the array's
/// tasks. Only an array of consecutive numbers names its shards so.
fn slurm(
    env: &impl Fn(&str) -> Option<String>,
    count: Option<u64>,
) -> Result<((u64, u64), Option<String>), String> {
    let number = |name: &str| -> Result<u64, String> {
        let value = env(name).unwrap_or_default();
        value.trim().parse::<u64>().map_err(|_| {
            format!("--shard auto: {name} is '{value}', not a number: is this a task of a Slurm job array?")
        })
    };
    let id = number(SLURM_TASK)?;
    let min = number("SLURM_ARRAY_TASK_MIN")?;
    let max = number("SLURM_ARRAY_TASK_MAX")?;
    let tasks = number("SLURM_ARRAY_TASK_COUNT")?;
    let array = format!("{SLURM_TASK} {id} of the array {min}-{max}");
    if max < min || max - min + 1 != tasks || !(min..=max).contains(&id) {
        return Err(format!(
            "--shard auto: the array's {tasks} tasks are not numbered {min} to {max} one by one ({array}): give the array consecutive numbers (--array=1-N or 0-N), or --shard I/N"
        ));
    }
    if tasks == 1 && count != Some(1) {
        return Err(format!(
            "--shard auto: this array has one task ({array}), which cannot tell which shard it is of how many: {RERUN_HINT}"
        ));
    }
    if let Some(n) = count.filter(|&n| n != tasks) {
        return Err(format!(
            "--shard auto/{n}: the array has {tasks} tasks ({array}), not {n}: give the array {n} tasks; {RERUN_HINT}"
        ));
    }
    Ok(((id - min + 1, tasks), Some(array)))
}

/// What a run says when it has nothing to play: a shard given no games (more shards than the
/// tournament has duplicate sets), or every game already in its folder.
pub fn nothing_to_play(definition: &Definition, scheduled: u64, dir: &str) -> String {
    let schedule = definition.schedule();
    match definition.shard {
        Some((i, n)) if scheduled == 0 => {
            let sets = schedule.count(None) / schedule.set_size().max(1) as u64;
            format!(
                "shard {i}/{n} holds no games: this tournament's {} go to shards 1 to {} (fewer shards would do)",
                text::count(sets, "duplicate set"),
                sets.min(n)
            )
        }
        Some((i, n)) => format!(
            "nothing to play: all {} of shard {i}/{n} are in {dir}",
            text::count(scheduled, "game")
        ),
        None => format!(
            "nothing to play: all {} are in {dir}",
            text::count(scheduled, "game")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn array(id: &str, min: &str, max: &str, count: &str) -> [(&'static str, String); 4] {
        [
            (SLURM_TASK, id.to_string()),
            ("SLURM_ARRAY_TASK_MIN", min.to_string()),
            ("SLURM_ARRAY_TASK_MAX", max.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
        ]
    }

    fn auto(count: Option<u64>, vars: &[(&str, String)]) -> Result<(u64, u64), String> {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (*n, v.as_str())).collect();
        ShardAsk::Auto(count)
            .resolve(env(&vars))
            .map(|(shard, _)| shard)
    }

    #[test]
    fn shards_are_typed_from_one_or_read_from_the_array() {
        assert_eq!(ShardAsk::parse("2/8"), Ok(ShardAsk::Given(2, 8)));
        assert_eq!(ShardAsk::parse("auto"), Ok(ShardAsk::Auto(None)));
        assert_eq!(ShardAsk::parse("auto/8"), Ok(ShardAsk::Auto(Some(8))));
        let zero = ShardAsk::parse("0/4").expect_err("numbered from 1");
        assert!(zero.contains("--shard auto"), "{zero}");
        for bad in ["9/8", "1/0", "auto/0", "auto/", "x/2", "2", "-1/2"] {
            assert!(ShardAsk::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_slurm_array_from_0_or_1_numbers_its_shards_from_1() {
        assert_eq!(auto(None, &array("0", "0", "3", "4")), Ok((1, 4)));
        assert_eq!(auto(None, &array("3", "0", "3", "4")), Ok((4, 4)));
        assert_eq!(auto(None, &array("1", "1", "4", "4")), Ok((1, 4)));
        assert_eq!(auto(Some(4), &array("4", "1", "4", "4")), Ok((4, 4)));
        assert_eq!(auto(None, &array("12", "10", "13", "4")), Ok((3, 4)));
    }

    #[test]
    fn an_array_that_names_no_shard_is_refused_with_what_to_do() {
        // A step (--array=0-6:2), one task resubmitted alone, another count than given.
        let stepped = auto(None, &array("2", "0", "6", "4")).expect_err("a step");
        assert!(stepped.contains("one by one"), "{stepped}");
        let alone = auto(None, &array("3", "3", "3", "1")).expect_err("one task");
        assert!(alone.contains("scontrol requeue"), "{alone}");
        let other = auto(Some(8), &array("1", "1", "4", "4")).expect_err("8 is not 4");
        assert!(other.contains("not 8"), "{other}");
        let text = auto(None, &array("x", "1", "4", "4")).expect_err("not a number");
        assert!(text.contains("'x'"), "{text}");
    }

    #[test]
    fn a_kubernetes_index_needs_the_count() {
        let index = [(KUBERNETES_INDEX, "2".to_string())];
        assert_eq!(auto(Some(4), &index), Ok((3, 4)));
        let uncounted = auto(None, &index).expect_err("no count");
        assert!(uncounted.contains("auto/N"), "{uncounted}");
        let past = auto(Some(2), &index).expect_err("index 2 of 2");
        assert!(past.contains("0 to 1"), "{past}");
    }

    #[test]
    fn auto_without_an_array_names_the_variables() {
        let refused = auto(None, &[]).expect_err("no array");
        assert!(
            refused.contains(SLURM_TASK) && refused.contains(KUBERNETES_INDEX),
            "{refused}"
        );
    }
}
