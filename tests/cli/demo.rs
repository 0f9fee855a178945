//! `majordomus demo`: a full episode in a throwaway repository, removed afterwards.

use std::path::{Path, PathBuf};

use regex::Regex;

use crate::common::TestRepo;

/// Entries of `dir` (the `TMPDIR` majordomus saw).
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("list TMPDIR")
        .map(|e| e.expect("entry").path())
        .collect()
}

#[test]
fn demo_runs_a_full_episode_and_leaves_nothing_behind() {
    // Outside any repository: the demo needs none and must not touch the current directory.
    let dir = TestRepo::unversioned();
    let run = dir.run(&["demo"]).success();
    let out = run.stdout();

    let first = out.lines().next().expect("output");
    let path = first
        .strip_prefix("majordomus demo: a full episode in ")
        .expect("the first line names the directory");
    assert!(
        Path::new(path).starts_with(dir.tmpdir()),
        "the demo ignored TMPDIR: {path}"
    );
    assert!(!Path::new(path).exists(), "{path} was left behind");
    assert_eq!(entries(&dir.tmpdir()), Vec::<PathBuf>::new());
    assert_eq!(
        std::fs::read_dir(dir.root()).expect("list").count(),
        0,
        "the demo wrote into the current directory"
    );

    for needle in [
        "schema: session/v1",
        "## Summary",
        "Added a whitespace tokenizer and settled how empty input behaves.",
        "Tokens are split on Unicode whitespace; no quoting rules⟫ (task t-",
        "outcome: completed",
        "issue tokenize is now active in .ai/repo/intents/tokenizer.yaml",
        "binding: bound, issue tokenize, intent tokenizer",
        "## Next Action",
        "disagreement: Which holds",
        "conclusion: Keep str::split_whitespace (reviewed by 2 advisor(s), 2 independent source(s))",
        "the temporary repository has been removed (use --keep to explore it)",
    ] {
        assert!(out.contains(needle), "missing {needle:?}:\n{out}");
    }
    // The demo's directory name is random; everything else is pinned.
    let name = Regex::new(r"majordomus-demo-[A-Za-z0-9]+").expect("valid regex");
    // How long a prepared answer took is measured, so it varies with the machine's load.
    let latency = Regex::new(r"\(\d+ ms\)").expect("valid regex");
    let redacted = dir.redact(out);
    let redacted = name.replace_all(&redacted, "majordomus-demo-[RANDOM]");
    insta::assert_snapshot!("demo_output", latency.replace_all(&redacted, "([N] ms)"));
}

#[test]
fn demo_json_parses() {
    let dir = TestRepo::unversioned();
    let json = dir.run(&["--format", "json", "demo"]).success().json();
    assert_eq!(json["kept"], false);
    let path = json["directory"].as_str().expect("directory");
    assert!(!Path::new(path).exists(), "{path} was left behind");
    let steps = json["steps"].as_array().expect("steps");
    // init, commit, intent, start, plan start, task start, decision, question, answer,
    // assessment, consult, resolution, conclusion, commit, checkpoint, task finish,
    // context, close, handover, candidates, rerun derive, promote, commit, the next
    // session, its briefing, recall, check, doctor.
    assert_eq!(steps.len(), 28);
    for step in steps {
        assert!(
            step["title"].is_string() && step["command"].is_string(),
            "{step}"
        );
        assert!(step["output"].is_object(), "{step}");
    }
    let closed = &steps
        .iter()
        .find(|s| {
            s["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("majordomus session close"))
        })
        .expect("a close step")["output"];
    assert_eq!(
        closed["derived"]["written"].as_array().map(Vec::len),
        Some(3),
        "a decision, an answer and the finished task"
    );
    let rerun = &steps[20]["output"];
    assert_eq!(rerun["nothing_to_write"], true, "{rerun}");
    let doctor = &steps.last().expect("a last step")["output"];
    assert_eq!(
        (doctor["blocking"].as_u64(), doctor["advisory"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(closed["record"]["schema"], "session/v1");
    assert_eq!(closed["record"]["outcome"], "completed");
    assert_eq!(closed["record"]["tasks"].as_array().map(Vec::len), Some(1));
    let handover = &steps[18]["output"];
    assert_eq!(handover["front"]["issue"], "tokenize", "{handover}");
    assert!(handover["front"]["plan_revision"].is_string(), "{handover}");
    assert!(
        closed["text"]
            .as_str()
            .is_some_and(|t| t.contains("## Summary")),
        "{closed}"
    );
}

#[test]
fn demo_keep_keeps_the_repository() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["demo", "--keep"]).success();
    let kept = run
        .stdout()
        .lines()
        .find_map(|l| l.strip_prefix("kept: "))
        .expect("a `kept:` line");
    let kept = Path::new(kept);
    assert!(kept.starts_with(dir.tmpdir()), "{}", kept.display());
    let sessions: Vec<PathBuf> = entries(&kept.join(".ai/repo/sessions"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert!(kept.join(".ai/local/ledger.jsonl").is_file());
}
