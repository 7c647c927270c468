//! Deal files: one deal, or an array of deals for the first hands of every game. Read as a
//! stream, deal by deal, each checked as it arrives, so that memory holds the deals and never
//! the file's text or a generic JSON tree of it.

use std::fmt;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use allfives_engine::deal::Deal;
use allfives_engine::rules::Rules;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::error::Category;

use crate::gamelog::describe;

/// Reads the deal file at `path` for a game under `rules`; the error is one sentence.
pub fn read_deals(path: &Path, rules: &Rules) -> Result<Arc<[Deal]>, String> {
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read deal file {shown}: {e}"))?;
    parse_deals(BufReader::new(file), rules).map_err(|e| {
        // serde_json ends its message with the position: put it first, where it reads well.
        let text = e.to_string();
        let at = format!(" at line {} column {}", e.line(), e.column());
        let why = text.strip_suffix(&at).unwrap_or(&text);
        let line = e.line();
        match e.classify() {
            Category::Io => format!("cannot read deal file {shown}: {why}"),
            Category::Syntax | Category::Eof => {
                format!("deal file {shown} is not JSON (line {line}): {why}")
            }
            Category::Data => format!("deal file {shown}, line {line}: {why}"),
        }
    })
}

/// Reads deals from `input`: a deal object, or an array of them. Each deal is checked against
/// `rules` as it is read; a deal past the `max_hands`-th is refused, since no game could play it.
pub fn parse_deals(input: impl Read, rules: &Rules) -> Result<Arc<[Deal]>, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_reader(input);
    let deals = reader.deserialize_any(DealsSeed { rules })?;
    reader.end()?;
    Ok(deals.into())
}

/// Deserializes a deal or an array of deals, checking each against the rules.
struct DealsSeed<'a> {
    rules: &'a Rules,
}

impl<'de> DeserializeSeed<'de> for DealsSeed<'_> {
    type Value = Vec<Deal>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Deal>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DealsSeed<'_> {
    type Value = Vec<Deal>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a deal object or an array of deals")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<Deal>, A::Error> {
        let deal: Deal = de::Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
        check(self.rules, &deal, 0)?;
        Ok(vec![deal])
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Deal>, A::Error> {
        let most = self.rules.max_hands as usize;
        let mut deals = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(most));
        while let Some(deal) = seq.next_element::<Deal>()? {
            if deals.len() == most {
                return Err(de::Error::custom(never_played(most)));
            }
            check(self.rules, &deal, deals.len())?;
            deals.push(deal);
        }
        Ok(deals)
    }
}

/// Why the deal after the `most`-th is refused, whoever gave it (`--deal`, `--deal-from`).
pub fn never_played(most: usize) -> String {
    format!(
        "deal {} would never be played: a game has at most {} (max_hands); remove the deals \
         after the {} or raise --max-hands",
        most + 1,
        describe::count(most as u64, "hand"),
        describe::ordinal(most as u64)
    )
}

fn check<E: de::Error>(rules: &Rules, deal: &Deal, index: usize) -> Result<(), E> {
    deal.validate(rules)
        .map_err(|e| E::custom(format!("deal {}: {e}", index + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn deals(n: u64, rules: &Rules) -> Vec<Deal> {
        (0..n)
            .map(|s| {
                let rng = &mut ChaCha8Rng::seed_from_u64(s);
                Deal::random(rules, None, rng).expect("valid rules")
            })
            .collect()
    }

    fn json(value: &impl serde::Serialize) -> Vec<u8> {
        serde_json::to_vec(value).expect("deals serialize")
    }

    #[test]
    fn one_deal_or_an_array() {
        let rules = Rules::new(2);
        let three = deals(3, &rules);
        let read = parse_deals(&json(&three[0])[..], &rules).expect("one deal");
        assert_eq!(&read[..], &three[..1]);
        let read = parse_deals(&json(&three)[..], &rules).expect("three deals");
        assert_eq!(&read[..], &three[..]);
    }

    #[test]
    fn deals_no_game_can_play_are_refused() {
        let mut rules = Rules::new(2);
        rules.max_hands = 2;
        let error = parse_deals(&json(&deals(3, &rules))[..], &rules)
            .expect_err("3 > 2")
            .to_string();
        assert!(error.contains("deal 3 would never be played"), "{error}");
        assert!(error.contains("at most 2 hands"), "{error}");
        assert!(error.contains("after the 2nd"), "{error}");
        assert!(parse_deals(&json(&deals(2, &rules))[..], &rules).is_ok());
        rules.max_hands = 1;
        let error = parse_deals(&json(&deals(2, &rules))[..], &rules)
            .expect_err("2 > 1")
            .to_string();
        assert!(error.contains("at most 1 hand (max_hands)"), "{error}");
        assert!(error.contains("after the 1st or"), "{error}");
    }

    #[test]
    fn errors_name_the_deal() {
        let rules = Rules::new(2);
        let mut bad = deals(2, &rules);
        bad[1].leader = 5;
        let error = parse_deals(&json(&bad)[..], &rules)
            .expect_err("a bad leader")
            .to_string();
        assert!(error.starts_with("deal 2: the leader"), "{error}");
        for text in ["", "[", "{}", "[1]", "[] []", "\"deal\""] {
            assert!(parse_deals(text.as_bytes(), &rules).is_err(), "{text:?}");
        }
    }
}
