//! How many CPUs this process may use: what it may run on (its CPU affinity and its cgroup's
//! CPU quota, both of which the standard library reads), and inside a Slurm job what the job
//! was given, which a cluster without task affinity or cgroups enforces nowhere else: there a
//! task given 1 CPU still sees every CPU of the node.

/// The CPUs this process may use (at least 1).
pub fn usable_cpus() -> usize {
    let runnable = std::thread::available_parallelism().map_or(1, |n| n.get());
    allowed(runnable, |name| std::env::var(name).ok())
}

/// `runnable` CPUs, fewer when a Slurm job's variables (`env` looks them up) give fewer: the
/// CPUs of each task if set, else those of the job on this node.
fn allowed(runnable: usize, env: impl Fn(&str) -> Option<String>) -> usize {
    let given = ["SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"]
        .into_iter()
        .find_map(|name| env(name)?.trim().parse::<usize>().ok().filter(|&n| n >= 1));
    given.map_or(runnable, |n| n.min(runnable)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_slurm_job_uses_the_cpus_it_was_given() {
        assert_eq!(allowed(8, with(&[])), 8);
        assert_eq!(allowed(8, with(&[("SLURM_CPUS_ON_NODE", "2")])), 2);
        let both = [("SLURM_CPUS_ON_NODE", "4"), ("SLURM_CPUS_PER_TASK", "3")];
        assert_eq!(allowed(8, with(&both)), 3);
        // Never more than it may run on, never none, nothing read from a bad value.
        assert_eq!(allowed(2, with(&[("SLURM_CPUS_ON_NODE", "16")])), 2);
        assert_eq!(allowed(4, with(&[("SLURM_CPUS_ON_NODE", "0")])), 4);
        assert_eq!(allowed(4, with(&[("SLURM_CPUS_PER_TASK", "x")])), 4);
        assert_eq!(allowed(0, with(&[])), 1);
    }
}
