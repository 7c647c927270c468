//! The sequential probability ratio test on duplicate pairs: the generalized SPRT of the
//! pentanomial model in its logistic form, as fastchess computes it
//! (`src/matchmaking/sprt/sprt.cpp`, after M. Van den Bergh, "Comparing the approximations for
//! the generalized log likelihood ratio of a multinomial distribution", Proposition 1.1). Under
//! each hypothesis the pairs' score distribution is the one closest (maximum likelihood) to the
//! observed one among those whose mean is the hypothesis's expected score; the LLR is the log of
//! their likelihood ratio on the observed pairs. An empty cell counts 1e-3 of a pair (fastchess's
//! regularization), so a few pairs give a small LLR rather than a division by a zero variance.
//!
//! Pure: the decision is a function of the counts; [`SprtTest`] latches the first decision so
//! that games recorded after it never reverse it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::normal::clean;
use super::pentanomial::score_of;

/// What `--sprt` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SprtSpec {
    /// H0's Elo difference.
    pub elo0: f64,
    /// H1's Elo difference.
    pub elo1: f64,
    /// The false positive rate: accepting H1 when H0 holds.
    pub alpha: f64,
    /// The false negative rate: accepting H0 when H1 holds.
    pub beta: f64,
}

impl SprtSpec {
    /// Reads `elo0=0,elo1=5,alpha=0.05,beta=0.05` (keys left out keep these values).
    pub fn parse(text: &str) -> Result<SprtSpec, String> {
        let mut spec = SprtSpec {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in text.split(',') {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("--sprt: '{part}' is not KEY=VALUE"))?;
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("--sprt: '{value}' is not a number"))?;
            match key.trim() {
                "elo0" => spec.elo0 = value,
                "elo1" => spec.elo1 = value,
                "alpha" => spec.alpha = value,
                "beta" => spec.beta = value,
                other => {
                    return Err(format!(
                        "--sprt: unknown key '{other}' (elo0, elo1, alpha, beta)"
                    ));
                }
            }
        }
        let rate = |r: f64| r > 0.0 && r < 0.5;
        let finite = spec.elo0.is_finite() && spec.elo1.is_finite();
        if !(finite && spec.elo0 < spec.elo1 && rate(spec.alpha) && rate(spec.beta)) {
            return Err("--sprt needs elo0 < elo1 and alpha, beta between 0 and 0.5".into());
        }
        Ok(spec)
    }

    /// Whether the test applies to a tournament of `entrants` entrants at tables of `players`:
    /// it compares two entrants through their duplicate pairs, so both must be 2.
    pub fn applies_to(entrants: usize, players: usize) -> Result<(), String> {
        match (entrants, players) {
            (2, 2) => Ok(()),
            _ => Err(format!(
                "--sprt tests two entrants playing each other alone, not {entrants} entrants at tables of {players}: drop --sprt, or give exactly two entrants and --players 2"
            )),
        }
    }

    /// Below this LLR, H0 is accepted: ln(beta / (1 - alpha)).
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Above this LLR, H1 is accepted: ln((1 - beta) / alpha).
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
}

/// A pair's score per game in each pentanomial cell.
const CELL_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// What an empty cell counts, in pairs (fastchess's regularization).
const EMPTY_CELL: f64 = 1e-3;

/// The generalized log-likelihood ratio of H1 against H0 for pairs with these pentanomial
/// counts (pairs scoring 0, 0.5, 1, 1.5, 2 of 2); 0 before the first pair.
pub fn llr(spec: &SprtSpec, counts: [u64; 5]) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let regular = counts.map(|c| if c == 0 { EMPTY_CELL } else { c as f64 });
    let total: f64 = regular.iter().sum();
    let observed = regular.map(|c| c / total);
    let p0 = closest_with_mean(&observed, score_of(spec.elo0));
    let p1 = closest_with_mean(&observed, score_of(spec.elo1));
    total
        * (0..5)
            .map(|i| observed[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>()
}

/// The distribution on [`CELL_SCORES`] of mean `s` that is most likely to have given the
/// observed frequencies: `p_i = q_i / (1 + theta (a_i - s))`, theta the root of
/// `sum q_i (a_i - s) / (1 + theta (a_i - s)) = 0` (Van den Bergh, Proposition 1.1).
fn closest_with_mean(observed: &[f64; 5], s: f64) -> [f64; 5] {
    let gap = |i: usize| CELL_SCORES[i] - s;
    let slope = |theta: f64| {
        (0..5)
            .map(|i| observed[i] * gap(i) / (1.0 + theta * gap(i)))
            .sum::<f64>()
    };
    // Every weight stays positive strictly between these ends, and the slope falls from +inf
    // to -inf across them: bisection finds the single root.
    let (mut low, mut high) = (-1.0 / gap(4), -1.0 / gap(0));
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            break;
        }
        match slope(middle) > 0.0 {
            true => low = middle,
            false => high = middle,
        }
    }
    let theta = 0.5 * (low + high);
    std::array::from_fn(|i| observed[i] / (1.0 + theta * gap(i)))
}

/// A hypothesis the test accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Hypothesis {
    /// The difference is at most elo0.
    H0,
    /// The difference is at least elo1.
    H1,
}

impl Hypothesis {
    /// `H0` or `H1`, as the text output names it.
    pub fn name(self) -> &'static str {
        match self {
            Hypothesis::H0 => "H0",
            Hypothesis::H1 => "H1",
        }
    }
}

/// The decision, taken once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// The hypothesis accepted.
    pub accepted: Hypothesis,
    /// The complete pairs counted when it was taken.
    pub pair: u64,
    /// The LLR then.
    pub llr: f64,
}

/// A sequential test as pairs complete, in the order they were recorded.
#[derive(Debug, Clone)]
pub struct SprtTest {
    spec: SprtSpec,
    decision: Option<Decision>,
}

impl SprtTest {
    /// A test not yet decided.
    pub fn new(spec: SprtSpec) -> SprtTest {
        SprtTest {
            spec,
            decision: None,
        }
    }

    /// The test with a decision taken before (read back from its folder): it stands.
    pub fn decided(mut self, decision: Option<Decision>) -> SprtTest {
        self.decision = decision.or(self.decision);
        self
    }

    /// What was asked for.
    pub fn spec(&self) -> &SprtSpec {
        &self.spec
    }

    /// Takes the counts after a pair completed; decides if the LLR crossed a bound and nothing
    /// was decided before. Returns the decision, old or new.
    pub fn observe(&mut self, counts: [u64; 5]) -> Option<Decision> {
        if self.decision.is_none() {
            let llr = llr(&self.spec, counts);
            let accepted = match llr {
                l if l >= self.spec.upper() => Some(Hypothesis::H1),
                l if l <= self.spec.lower() => Some(Hypothesis::H0),
                _ => None,
            };
            self.decision = accepted.map(|accepted| Decision {
                accepted,
                pair: counts.iter().sum(),
                llr,
            });
        }
        self.decision
    }

    /// The decision, if taken.
    pub fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// The report on `counts` (all pairs so far, those after the decision too).
    pub fn report(&self, counts: [u64; 5]) -> Sprt {
        let s = &self.spec;
        Sprt {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            lower: s.lower(),
            upper: s.upper(),
            pairs: counts.iter().sum(),
            llr: clean(llr(s, counts)),
            decision: self
                .decision
                .map_or("continue".to_string(), |d| match d.accepted {
                    Hypothesis::H0 => "h0".to_string(),
                    Hypothesis::H1 => "h1".to_string(),
                }),
            decided: self.decision,
        }
    }
}

/// The sequential test as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sprt {
    /// H0's Elo difference.
    pub elo0: f64,
    /// H1's Elo difference.
    pub elo1: f64,
    /// The false positive rate.
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
    /// Complete pairs counted, those recorded after the decision too.
    pub pairs: u64,
    /// The LLR over all of them.
    pub llr: f64,
    /// At or below this, H0 is accepted.
    pub lower: f64,
    /// At or above this, H1 is accepted.
    pub upper: f64,
    /// `h0` or `h1` once decided (final: later pairs never change it), else `continue`.
    pub decision: String,
    /// When and how it was decided: the pair that crossed a bound and the LLR then.
    pub decided: Option<Decision>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> SprtSpec {
        SprtSpec::parse(text).expect("a valid --sprt")
    }

    #[test]
    fn few_pairs_give_a_small_llr() {
        // Issue 18: fastchess gives +0.028 for one pair won twice and -0.083 for three pairs
        // split 1-1; the variance floor gave +70.9 and -3.1.
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        let won = llr(&s, [0, 0, 0, 0, 1]);
        assert!((won - 0.028).abs() < 0.001, "{won}");
        let lost = llr(&s, [1, 0, 0, 0, 0]);
        assert!(lost < 0.0 && lost > -0.1, "{lost}");
        let split = llr(&s, [0, 0, 3, 0, 0]);
        assert!((split - (-0.083)).abs() < 0.001, "{split}");
        let mut test = SprtTest::new(s);
        for counts in [[0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 3, 0, 0]] {
            assert_eq!(test.observe(counts), None);
        }
    }

    #[test]
    fn agrees_with_fastchess() {
        // The later pairs: fastchess's GSPRT gives 2.767 (the floor's formula 2.957).
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        let later = llr(&s, [36, 0, 144, 0, 83]);
        assert!((later - 2.767).abs() < 0.001, "{later}");
        // fastchess's own tests (app/tests/sprt_test.cpp, "logistic pentanomial 1" and "2";
        // WL and DD pairs both score 1 and share a cell).
        let one = llr(&spec("elo0=0.5,elo1=2.5"), [223, 9863, 21279, 10037, 246]);
        assert!((one - (-3.07)).abs() < 0.03, "{one}");
        let two = llr(&spec("elo0=0,elo1=2"), [871, 26175, 55983, 26678, 821]);
        assert!((two - (-4.98)).abs() < 0.05, "{two}");
    }

    #[test]
    fn the_first_decision_is_final() {
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        let mut test = SprtTest::new(s);
        assert_eq!(
            test.observe([0, 0, 0, 0, 100]),
            None,
            "LLR 2.84 after 100 pairs all won"
        );
        let decided = test
            .observe([0, 0, 0, 0, 110])
            .expect("110 pairs won outright decide");
        assert_eq!((decided.accepted, decided.pair), (Hypothesis::H1, 110));
        // Pairs recorded afterwards pull the LLR below the lower bound: the decision stands.
        let later = [1000, 0, 0, 0, 110];
        assert!(llr(&s, later) < s.lower());
        assert_eq!(test.observe(later), Some(decided));
        let report = test.report(later);
        assert_eq!(report.decision, "h1");
        assert_eq!(report.pairs, 1110);
        assert_eq!(report.decided, Some(decided));
    }

    #[test]
    fn bounds_and_bad_specs() {
        let s = spec("elo0=0,elo1=10,alpha=0.05,beta=0.05");
        assert!((s.upper() - 2.944).abs() < 1e-3 && (s.lower() + 2.944).abs() < 1e-3);
        assert!(SprtSpec::applies_to(2, 2).is_ok());
        assert!(SprtSpec::applies_to(3, 2).is_err() && SprtSpec::applies_to(2, 3).is_err());
        for bad in [
            "elo0=5,elo1=0",
            "alpha=0",
            "beta=0.5",
            "elo1=inf",
            "x=1",
            "elo0",
        ] {
            assert!(SprtSpec::parse(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        /// Whatever pairs come after it, a decision once taken stays as it was.
        #[test]
        fn a_decision_never_changes(cells in proptest::collection::vec(0usize..5, 1..400)) {
            let s = spec("elo0=0,elo1=20,alpha=0.1,beta=0.1");
            let mut test = SprtTest::new(s);
            let mut counts = [0u64; 5];
            let mut first = None;
            for cell in cells {
                counts[cell] += 1;
                let now = test.observe(counts);
                if first.is_none() {
                    first = now;
                }
                proptest::prop_assert_eq!(now, first);
            }
        }
    }
}
