//! `allfives schema`: every message the referee sends, every example in protocol.md and every
//! answer of every sample bot validates against it.

use serde_json::Value;

use crate::harness::{Sandbox, allfives, play, quote, root};

/// The schema as the binary prints it.
fn schema() -> Value {
    let ran = allfives(&["schema"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    ran.json()
}

/// A validator for one of the schema's definitions (`ToBot`, `FromBot`), or the root.
fn validator(schema: &Value, def: Option<&str>) -> jsonschema::Validator {
    let mut schema = schema.clone();
    if let Some(def) = def {
        schema["anyOf"] = Value::Array(vec![
            serde_json::json!({ "$ref": format!("#/$defs/{def}") }),
        ]);
    }
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

fn assert_valid(validator: &jsonschema::Validator, message: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(message)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate: {errors:?}\n{message}"
    );
}

fn json_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn the_schema_rejects_what_the_referee_rejects() {
    let schema = schema();
    let from_bot = validator(&schema, Some("FromBot"));
    let good = serde_json::json!({"type": "move", "id": 3, "tile": [5, 0], "end": "left"});
    assert!(from_bot.is_valid(&good));
    let copied = serde_json::json!({"type": "move", "id": 3, "tile": [0, 5], "end": "left", "sum": 10, "points": 10});
    assert!(from_bot.is_valid(&copied), "a legal entry copied whole");
    let own = serde_json::json!({"type": "hello", "id": 1, "name": "x", "author": "me"});
    assert!(from_bot.is_valid(&own), "a field of the bot's own");
    for bad in [
        serde_json::json!({"type": "move", "id": 3, "tile": [5, 7], "end": "left"}),
        serde_json::json!({"type": "move", "id": 3, "tile": [5, 0], "end": "middle"}),
        serde_json::json!({"type": "move", "tile": [5, 0]}),
        serde_json::json!({"type": "move", "id": 3, "tiles": [5, 0], "end": "left"}),
        serde_json::json!({"type": "move", "id": "3", "tile": [5, 0], "end": "left"}),
        serde_json::json!({"type": "pass", "id": 3}),
    ] {
        assert!(!from_bot.is_valid(&bad), "accepted {bad}");
    }
}

#[test]
fn every_message_the_referee_sends_validates() {
    let schema = schema();
    let to_bot = validator(&schema, Some("ToBot"));
    let sb = Sandbox::new();
    let received = sb.path("received.jsonl");
    let recorder = sb.fixture("recorder", &[&received.display().to_string()]);
    // The recorder writes its file where bots may not: trusted, uncontained.
    for options in [
        vec!["--games", "2", "--target", "60", "--no-sandbox"],
        vec![
            "--no-sandbox",
            "--spinner",
            "all",
            "--hand-end",
            "bonus",
            "--finish",
            "end-of-hand",
            "--target",
            "60",
        ],
    ] {
        play(
            &sb,
            &[recorder.clone(), "builtin:greedy".to_string()],
            &options,
        );
    }
    play(
        &sb,
        &[
            recorder.clone(),
            "builtin:random".into(),
            "builtin:greedy".into(),
            "builtin:random".into(),
        ],
        &["--target", "60", "--no-sandbox"],
    );
    let messages = json_lines(&received);
    let kinds: std::collections::BTreeSet<&str> =
        messages.iter().filter_map(|m| m["type"].as_str()).collect();
    for kind in [
        "hello",
        "game_start",
        "hand_start",
        "event",
        "turn",
        "hand_end",
        "game_end",
        "bye",
    ] {
        assert!(
            kinds.contains(kind),
            "the recorder never received a {kind}: {kinds:?}"
        );
    }
    for message in &messages {
        assert_valid(&to_bot, message, "a referee message");
    }
}

/// The messages in protocol.md's ```json blocks (a block is one value, or one per line), up to
/// the section on game logs, whose lines are not messages.
fn protocol_examples() -> Vec<Value> {
    let text = std::fs::read_to_string(root().join("protocol.md")).expect("protocol.md exists");
    let messages = text.split("\n## Game logs").next().unwrap_or_default();
    let mut examples = Vec::new();
    let mut block: Option<String> = None;
    for line in messages.lines() {
        match (&mut block, line.trim_start()) {
            (None, l) if l.starts_with("```json") => block = Some(String::new()),
            (Some(b), l) if l.starts_with("```") => {
                match serde_json::from_str::<Value>(b) {
                    Ok(v) => examples.push(v),
                    Err(_) => {
                        examples.extend(b.lines().filter_map(|l| serde_json::from_str(l).ok()))
                    }
                }
                block = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    examples
        .into_iter()
        .filter(|v| v.get("type").is_some())
        .collect()
}

#[test]
fn every_example_in_protocol_md_validates() {
    let schema = schema();
    let any = validator(&schema, None);
    let examples = protocol_examples();
    assert!(
        examples.len() >= 8,
        "protocol.md has only {} JSON examples",
        examples.len()
    );
    for example in &examples {
        assert_valid(&any, example, "an example of protocol.md");
    }
}

#[test]
fn every_sample_bot_answer_validates() {
    let schema = schema();
    let from_bot = validator(&schema, Some("FromBot"));
    let sb = Sandbox::new();
    // Every command ends with the sandbox's token, which marks the processes it starts.
    let bots = [
        sb.sample("greedy_bot", &[]),
        sb.sample("random_bot", &["1"]),
        format!(
            "node {} {}",
            quote(
                &root()
                    .join("sample_bots/js/greedy_bot.js")
                    .display()
                    .to_string()
            ),
            sb.token()
        ),
        format!(
            "{} --name {}",
            quote(&crate::harness::strong_bot().display().to_string()),
            sb.token()
        ),
    ];
    let tee = root().join("tests/fixtures/bots/tee.py");
    for (i, bot) in bots.iter().enumerate() {
        let answers = sb.path(&format!("answers-{i}.jsonl"));
        let wrapped = format!(
            "python3 {} {} {bot}",
            quote(&tee.display().to_string()),
            quote(&answers.display().to_string())
        );
        play(
            &sb,
            &[wrapped, "builtin:greedy".to_string()],
            // tee writes its copy where bots may not: trusted, uncontained.
            &["--target", "100", "--no-sandbox"],
        );
        let lines = json_lines(&answers);
        assert!(
            lines.len() > 3,
            "bot {bot} answered only {} lines",
            lines.len()
        );
        for answer in &lines {
            assert_valid(&from_bot, answer, &format!("an answer of {bot}"));
        }
    }
    sb.assert_no_bot_left();
}

/// The fields of a table in protocol.md: the first column's `name`s, from the table after the
/// heading `heading` up to the next heading.
fn table_fields(heading: &str) -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("protocol.md")).expect("protocol.md exists");
    let section = text
        .split(&format!("\n{heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("protocol.md has no '{heading}'"));
    let section = section.split("\n#").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect()
}

/// The names of an object schema's properties.
fn properties(object: &Value) -> std::collections::BTreeSet<String> {
    object["properties"]
        .as_object()
        .expect("an object's properties")
        .keys()
        .filter(|k| *k != "type")
        .cloned()
        .collect()
}

/// The prose and the schema name the same fields: the tables of protocol.md against the
/// schema's view, `game_start` and hand summary. The schema requires every field of a view
/// (the referee always writes them all).
#[test]
fn the_tables_of_protocol_md_match_the_schema() {
    let schema = schema();
    let defs = &schema["$defs"];
    let view = &defs["View"];
    assert_eq!(table_fields("## The view"), properties(view));
    let required: std::collections::BTreeSet<String> = view["required"]
        .as_array()
        .expect("the view's required fields")
        .iter()
        .map(|f| f.as_str().expect("a name").to_string())
        .collect();
    assert_eq!(
        required,
        properties(view),
        "every field of a view is always sent"
    );
    let game_start = defs["ToBot"]["oneOf"]
        .as_array()
        .expect("the referee's messages")
        .iter()
        .find(|m| m["properties"]["type"]["const"] == "game_start")
        .expect("a game_start message");
    assert_eq!(table_fields("### game_start"), properties(game_start));
    assert_eq!(
        table_fields("### hand_end"),
        properties(&defs["HandSummary"])
    );
}

#[test]
fn match_tournament_and_standings_json_validate_against_the_results_schema() {
    let results = allfives(&["schema", "results"]);
    assert_eq!(results.code, Some(0), "{}", results.stderr);
    let report_schema = validator(&results.json(), None);
    let line = allfives(&["schema", "results-line"]);
    let line_schema = validator(&line.json(), None);
    let sb = Sandbox::new();
    let bots = [
        "a=builtin:greedy".to_string(),
        "b=builtin:random".to_string(),
    ];
    let (_, report) = play(
        &sb,
        &bots,
        &["--games", "3", "--seed", "2", "--public-seed"],
    );
    assert_eq!(report["format"], "allfives-results");
    assert_eq!(report["version"], 2);
    assert_valid(&report_schema, &report, "match --json");
    let out = sb.path("t").display().to_string();
    let ran = allfives(&[
        "tournament",
        "--json",
        "-q",
        "--deals",
        "2",
        "--out",
        &out,
        &bots[0],
        &bots[1],
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_valid(&report_schema, &ran.json(), "tournament --json");
    for line in json_lines(&sb.path("t/results.jsonl")) {
        assert_valid(&line_schema, &line, "a results line");
    }
    let standings = allfives(&["standings", "--json", &out]);
    assert_valid(&report_schema, &standings.json(), "standings --json");
}

/// What a bot tried and was refused (`probed`) is in the results schema: in a results line's
/// seats and in the standings' rows, of a match, a tournament and `standings`, in JSON and text.
#[test]
fn the_counts_of_refused_calls_validate_against_the_results_schema() {
    let report_schema = validator(&allfives(&["schema", "results"]).json(), None);
    let line_schema = validator(&allfives(&["schema", "results-line"]).json(), None);
    let sb = Sandbox::new();
    // The key-using cheat calls keyctl and add_key at every hand, whatever keyring it has.
    let cheat = format!("k={}", sb.fixture("cheat_remembers_through_keys", &[]));
    let bots = [cheat, "g=builtin:greedy".to_string()];
    let options = ["--games", "2", "--seed", "2", "--max-hands", "1"];
    let (ran, report) = play(&sb, &bots, &options);
    assert_valid(&report_schema, &report, "match --json");
    let probed = &report["standings"]["entrants"][0]["probed"];
    assert!(probed["add_key"].as_u64() > Some(0), "{report:#}");
    assert!(
        report["games"][0]["seats"][0]["probed"].is_object(),
        "{report:#}"
    );
    assert!(ran.stdout.contains("probed"), "{}", ran.stdout);
    let out = sb.path("t").display().to_string();
    let mut args = vec!["tournament", "--json", "-q", "--deals", "1", "--out", &out];
    args.extend([bots[0].as_str(), bots[1].as_str(), "--max-hands", "1"]);
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_valid(&report_schema, &ran.json(), "tournament --json");
    let lines = json_lines(&sb.path("t/results.jsonl"));
    assert!(lines.iter().any(|l| l.to_string().contains("\"probed\"")));
    for line in lines {
        assert_valid(&line_schema, &line, "a results line");
    }
    let standings = allfives(&["standings", "--json", &out]);
    assert_valid(&report_schema, &standings.json(), "standings --json");
    let text = allfives(&["standings", &out]);
    assert!(
        text.stdout.contains("k probed: add_key 2, keyctl 2"),
        "{}",
        text.stdout
    );
}
