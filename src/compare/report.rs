//! The comparison as one document: the summary, the partings ranked by what they cost NEW and
//! grouped by signature, each deal's paired difference. `--json` prints it, the page shows it
//! (docs/results.md, "Comparisons"; `allfives schema compare`). Pure.

use std::collections::BTreeMap;

use allfives_engine::protocol::Info;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::compare::pairing::Side;
use crate::compare::parting::Parting;
use crate::compare::summary::{self, Mean, Sequential, SequentialSpec};
use crate::tournament::ratings::normal::clean;
use crate::tournament::ratings::pentanomial::{self, Elo};

/// The format's version.
pub const VERSION: u32 = 1;

/// A compared entrant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Version {
    /// Its name in its folder.
    pub name: String,
    /// Its tournament folder.
    pub folder: String,
}

/// The points summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Points {
    /// NEW's margins minus OLD's over every pair, in points (exactly `units / scale`).
    pub total: f64,
    /// The same in units of 1/`scale` points, exact: the sum of every deal's `units`.
    pub units: i64,
    /// Units per point: the other sides' count at a table (1 with 2 players or partnerships).
    pub scale: i64,
    /// The paired points difference per deal, with its interval.
    pub per_deal: Mean,
}

/// How the pairs' results compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Results {
    /// Pairs in which NEW's result beat OLD's.
    pub better: u64,
    /// Pairs with the same result.
    pub same: u64,
    /// Pairs in which NEW's result was worse.
    pub worse: u64,
    /// The Elo of NEW over OLD from the pentanomial counts of the pairs (NEW's result plus
    /// OLD's opponent's: a duplicate match of the two through the same opponents).
    pub elo: Elo,
}

/// How many pairs part where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Pairs whose games are the same throughout.
    pub same: u64,
    /// Pairs whose compared entrants chose differently (a parting).
    pub parted: u64,
    /// Pairs an opponent split before the compared entrants differed: that opponent does not
    /// follow its `bot_seed`, and those pairs' differences are not the versions' alone.
    pub split: u64,
}

/// A deal's paired difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DealLine {
    /// The deal's index.
    pub deal: u64,
    /// Its pairs of games.
    pub pairs: u64,
    /// NEW's margins minus OLD's, in points.
    pub points: f64,
    /// The same in units (exact).
    pub units: i64,
}

/// A decision where OLD and NEW (or an opponent) chose differently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PartingLine {
    /// The deal's index.
    pub deal: u64,
    /// OLD's game id.
    pub old_game: String,
    /// NEW's game id.
    pub new_game: String,
    /// The decision, as `replay --turn K` counts them.
    pub turn: u32,
    /// The seat on move.
    pub seat: usize,
    /// NEW's margin minus OLD's in this pair of games, in points: what it cost (negative) or
    /// gained.
    pub points: f64,
    /// The deal's paired difference, in points.
    pub deal_points: f64,
    /// The choice's plain signature (empty for a split).
    pub signature: String,
    /// OLD's move in words, with what it scored.
    pub old_move: String,
    /// NEW's move in words.
    pub new_move: String,
    /// OLD's info there.
    pub old_info: Option<Info>,
    /// NEW's info there.
    pub new_info: Option<Info>,
    /// The command that shows OLD's game at this decision.
    pub old_replay: String,
    /// The command that shows NEW's game at this decision.
    pub new_replay: String,
    /// The decision drawn, for the top partings only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
}

/// A parting drawn: the view and both games there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Detail {
    /// The `turn` message OLD was sent there, as sent (NEW's differs at most in its id).
    pub view: String,
    /// OLD's game at the decision, as `replay --turn` shows it.
    pub old_text: String,
    /// NEW's game at the decision.
    pub new_text: String,
}

/// Partings of one signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Group {
    /// The signature.
    pub signature: String,
    /// Its partings.
    pub count: u64,
    /// Their pairs' differences summed, in points.
    pub points: f64,
    /// Its partings' places in `partings`, costliest first.
    pub partings: Vec<usize>,
}

/// `allfives compare --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// Always `allfives-compare`.
    pub kind: String,
    /// [`VERSION`].
    pub version: u32,
    /// The old version.
    pub old: Version,
    /// The new version.
    pub new: Version,
    /// Deals with at least one pair of games.
    pub deals: u64,
    /// The deals `compare` was asked to play, when it played them: with `--sprt`, play stops
    /// at the end of the round in which the test decides, so `deals` may be fewer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deals_asked: Option<u64>,
    /// Pairs of games (the same deal, seats and opponents).
    pub pairs: u64,
    /// OLD's games NEW did not play, and NEW's OLD did not: left out.
    pub unpaired: (u64, u64),
    /// The points summary.
    pub points: Points,
    /// The results summary.
    pub results: Results,
    /// The sequential test, when asked for.
    pub sequential: Option<Sequential>,
    /// Where pairs part.
    pub counts: Counts,
    /// Groups of partings by signature, the costliest to NEW first.
    pub groups: Vec<Group>,
    /// Every parting of OLD and NEW, the costliest to NEW first.
    pub partings: Vec<PartingLine>,
    /// The pairs an opponent split, in deal order.
    pub splits: Vec<PartingLine>,
    /// Every deal's paired difference, in deal order.
    pub per_deal: Vec<DealLine>,
}

/// A pair of games with how they part and, where they do, what each side did.
#[derive(Debug, Clone)]
pub struct Compared {
    /// OLD's game.
    pub old: Side,
    /// NEW's game.
    pub new: Side,
    /// Where they part.
    pub parting: Parting,
    /// The parting line (its `points` and `deal_points` filled by [`build`]), unless the games
    /// are the same.
    pub line: Option<PartingLine>,
}

/// The report of `compared`, OLD and NEW being `old` and `new`; `unpaired` the games left
/// alone; `sequential` the test to run.
pub fn build(
    old: Version,
    new: Version,
    compared: Vec<Compared>,
    unpaired: (u64, u64),
    sequential: Option<SequentialSpec>,
) -> Report {
    let scale = compared.iter().map(|c| c.old.scale).max().unwrap_or(1);
    let diff = |c: &Compared| (c.new.margin - c.old.margin) * scale / c.old.scale.max(1);
    let mut deals: BTreeMap<u64, (u64, i64)> = BTreeMap::new();
    for c in &compared {
        let entry = deals.entry(c.old.deal).or_default();
        entry.0 += 1;
        entry.1 += diff(c);
    }
    let points = |units: i64| clean(units as f64 / scale as f64);
    let per_deal: Vec<DealLine> = deals
        .iter()
        .map(|(&deal, &(pairs, units))| DealLine {
            deal,
            pairs,
            points: points(units),
            units,
        })
        .collect();
    let values: Vec<f64> = per_deal.iter().map(|d| d.points).collect();
    let units: i64 = per_deal.iter().map(|d| d.units).sum();
    let results: Vec<(u8, u8)> = compared
        .iter()
        .map(|c| (c.old.result, c.new.result))
        .collect();
    let counts = Counts {
        same: count(&compared, |p| matches!(p, Parting::Same)),
        parted: count(&compared, |p| matches!(p, Parting::Differ { .. })),
        split: count(&compared, |p| matches!(p, Parting::Split { .. })),
    };
    let (mut partings, mut splits) = (Vec::new(), Vec::new());
    for c in &compared {
        let Some(mut line) = c.line.clone() else {
            continue;
        };
        line.points = points(diff(c));
        line.deal_points = points(deals[&c.old.deal].1);
        match c.parting {
            Parting::Split { .. } => splits.push(line),
            _ => partings.push(line),
        }
    }
    partings.sort_by(|a, b| {
        a.points
            .total_cmp(&b.points)
            .then(a.deal.cmp(&b.deal))
            .then(a.old_game.cmp(&b.old_game))
    });
    splits.sort_by(|a, b| a.deal.cmp(&b.deal).then(a.old_game.cmp(&b.old_game)));
    Report {
        kind: "allfives-compare".into(),
        version: VERSION,
        results: Results {
            better: results.iter().filter(|(o, n)| n > o).count() as u64,
            same: results.iter().filter(|(o, n)| n == o).count() as u64,
            worse: results.iter().filter(|(o, n)| n < o).count() as u64,
            elo: pentanomial::elo(&new.name, &old.name, summary::pentanomial(results)),
        },
        old,
        new,
        deals: per_deal.len() as u64,
        deals_asked: None,
        pairs: compared.len() as u64,
        unpaired,
        points: Points {
            total: points(units),
            units,
            scale,
            per_deal: summary::t_interval(&values),
        },
        sequential: sequential.map(|spec| summary::sequential(spec, &values)),
        counts,
        groups: groups(&partings),
        partings,
        splits,
        per_deal,
    }
}

/// The pairs whose parting `is`.
fn count(compared: &[Compared], is: impl Fn(&Parting) -> bool) -> u64 {
    compared.iter().filter(|c| is(&c.parting)).count() as u64
}

/// The partings (ranked) grouped by signature, the group that cost NEW most first.
fn groups(partings: &[PartingLine]) -> Vec<Group> {
    let mut by: BTreeMap<&str, Group> = BTreeMap::new();
    for (i, p) in partings.iter().enumerate() {
        let group = by.entry(&p.signature).or_insert_with(|| Group {
            signature: p.signature.clone(),
            count: 0,
            points: 0.0,
            partings: Vec::new(),
        });
        group.count += 1;
        group.points += p.points;
        group.partings.push(i);
    }
    let mut groups: Vec<Group> = by.into_values().collect();
    for g in &mut groups {
        g.points = clean(g.points);
    }
    groups.sort_by(|a, b| a.points.total_cmp(&b.points).then(b.count.cmp(&a.count)));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(deal: u64, seed: u64, margin: i64, result: u8) -> Side {
        Side {
            id: format!("{deal}/{seed}"),
            deal,
            deal_seed: deal,
            seed,
            others: vec![None, Some("x".into())],
            seats: vec![0],
            margin,
            scale: 1,
            result,
            log: None,
        }
    }

    #[test]
    fn deals_sum_exactly_to_the_total() {
        let compared: Vec<Compared> = (0..30)
            .map(|i| Compared {
                old: side(i / 2, i, (i as i64 * 37) % 101 - 50, 2),
                new: side(i / 2, i, (i as i64 * 53) % 97 - 48, (i % 3) as u8),
                parting: Parting::Same,
                line: None,
            })
            .collect();
        let total: i64 = compared.iter().map(|c| c.new.margin - c.old.margin).sum();
        let v = |n: &str| Version {
            name: n.into(),
            folder: n.into(),
        };
        let report = build(v("old"), v("new"), compared, (0, 0), None);
        assert_eq!(report.points.units, total);
        assert_eq!(report.per_deal.iter().map(|d| d.units).sum::<i64>(), total);
        assert_eq!(report.deals, 15);
        assert_eq!(report.results.elo.pentanomial.iter().sum::<u64>(), 30);
    }
}
