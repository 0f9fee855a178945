//! The knowledge lifecycle to its end (issue 35): a verified record superseded or retired
//! by command (`knowledge supersede`, `knowledge retire`, `promote --supersedes`), with who,
//! when and why in the record and one ledger line each; every refusal with a fix that works
//! as printed; a candidate whose cited file is gone blocks nothing.

use serde_json::{Value, json};

use crate::common::{TestRepo, fix_lines, next_lines, split_record};

const CANDIDATES: &str = ".ai/repo/knowledge/candidates";
const CURATED: &str = ".ai/repo/knowledge/curated";

fn curated(id: &str) -> String {
    format!("{CURATED}/{id}.md")
}

/// An initialised repository with `src/pricing.rs` and `src/trace.rs` committed.
pub(crate) fn project() -> TestRepo {
    let repo = TestRepo::initialised();
    repo.write("src/pricing.rs", "pub fn refresh() {}\n");
    repo.write("src/trace.rs", "pub fn normalize() {}\n");
    repo.git(&["add", "src"]);
    repo.git(&["commit", "-q", "-m", "Add the pricing and trace modules"]);
    repo
}

/// Records `text` as a decision citing `file` in an episode of its own and closes it: the
/// id of the candidate it derived.
pub(crate) fn decided(repo: &TestRepo, text: &str, file: &str) -> String {
    repo.run(&["session", "start"]).success();
    repo.run(&["decision", text, "--file", file]).success();
    repo.run(&["session", "close"]).success();
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    listing["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|c| c["title"] == text)
        .and_then(|c| c["id"].as_str())
        .unwrap_or_else(|| panic!("no candidate titled {text}: {listing}"))
        .to_owned()
}

/// [`decided`], promoted with `evidence` and committed: the verified record's id.
pub(crate) fn verified(repo: &TestRepo, text: &str, file: &str, evidence: &str) -> String {
    let id = decided(repo, text, file);
    repo.run_with_stdin(&["knowledge", "promote", &id], evidence)
        .success();
    repo.git(&["add", "-A", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", &format!("Verify {id}")]);
    id
}

/// The front matter of the record at `rel` and its body.
fn record(repo: &TestRepo, rel: &str) -> (Value, String) {
    let (_, front, body) = split_record(&repo.read(rel));
    (front, body)
}

// --- item 1: supersede and retire by command ---------------------------------------------

#[test]
fn a_verified_record_is_superseded_with_who_when_and_why_and_one_ledger_line() {
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let new = verified(
        &repo,
        "Model pricing refresh runs as a background task",
        "src/pricing.rs",
        "src/pricing.rs spawns refresh()",
    );
    let before = repo.ledger_events("knowledge.superseded").len();
    let run = repo
        .run_with_stdin(
            &["knowledge", "supersede", &old, "--by", &new],
            "The refresh moved to a background task\n",
        )
        .success();
    assert!(
        run.stdout().starts_with(&format!(
            "superseded 1 record(s) by {new}, decided by Ada Tester <ada@example.invalid> at "
        )),
        "{run}"
    );
    let (front, body) = record(&repo, &curated(&old));
    assert_eq!(front["status"], "superseded");
    assert_eq!(front["superseded_by"], new.as_str());
    assert!(
        body.ends_with(&format!(
            "\n# Superseded\n\nSuperseded by {new} at 2026-11-30T10:00:00Z by Ada Tester <ada@example.invalid>: The refresh moved to a background task\n"
        )),
        "{body}"
    );
    // The evidence it was verified with stays above it.
    assert!(body.contains("# Evidence\n\nsrc/pricing.rs calls refresh() inline"));
    let lines = repo.ledger_events("knowledge.superseded");
    assert_eq!(lines.len(), before + 1);
    assert_eq!(
        lines[before]["data"],
        json!({
            "id": old,
            "superseded_by": new,
            "reason": "The refresh moved to a background task",
            "path": curated(&old),
            "decided_by": "Ada Tester <ada@example.invalid>",
        })
    );
    // No longer listed as verified; the store checks clean; the next line commits it.
    let listing = repo
        .run(&["--format", "json", "knowledge", "verified"])
        .success()
        .json();
    let ids: Vec<&str> = listing["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, [new.as_str()], "{listing}");
    assert_eq!(listing["ended"], 1);
    repo.run(&["knowledge", "check"]).success();
    for next in next_lines(run.stdout()) {
        repo.run_printed(&next);
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn retire_takes_many_ids_or_the_listed_selection_and_writes_one_commit() {
    let repo = project();
    let a = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let b = verified(
        &repo,
        "Trace ids are random",
        "src/trace.rs",
        "src/trace.rs: ids",
    );
    let keep = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let episode_of = |id: &str| id[..23].to_owned();

    // Filters without --all-listed: refused, the fix lists what they select.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "retire",
            "--episode",
            &episode_of(&a),
            "--reason",
            "gone",
        ],
        "",
        "knowledge.selection-required",
    );
    assert_eq!(
        fix,
        format!("majordomus knowledge verified --episode {}", episode_of(&a))
    );
    let listed = repo.run_printed(&fix);
    assert!(listed.contains(&a) && !listed.contains(&b), "{listed}");
    // Ids with a selection: refused.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "retire",
            &a,
            "--all-listed",
            "--reason",
            "gone",
        ],
        "",
        "knowledge.selection-mixed",
    );
    assert!(!fix.is_empty());
    // A selection that lists nothing: the fix lists what there is.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "retire",
            "--all-listed",
            "--stale",
            "--reason",
            "gone",
        ],
        "",
        "knowledge.selection-empty",
    );
    repo.run_printed(&fix);

    // Two by id, one commit holding exactly their two files.
    let head = repo.head();
    repo.write("notes.txt", "not the act's\n");
    let run = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "retire",
            &a,
            &b,
            "--reason",
            "The trace module was rewritten",
            "--commit",
        ])
        .success();
    let json = run.json();
    assert_eq!(json["act"], "retire");
    assert_eq!(json["records"].as_array().map(Vec::len), Some(2), "{json}");
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    let mut paths: Vec<String> = repo
        .git(&["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect();
    paths.sort();
    let mut expected = vec![curated(&a), curated(&b)];
    expected.sort();
    assert_eq!(paths, expected);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "majordomus: retire 2"
    );
    for id in [&a, &b] {
        let (front, body) = record(&repo, &curated(id));
        assert_eq!(front["status"], "superseded");
        assert!(front.get("superseded_by").is_none());
        assert!(
            body.contains("\n# Superseded\n\nRetired at 2026-11-30T10:00:00Z by Ada Tester <ada@example.invalid>: The trace module was rewritten\n"),
            "{body}"
        );
    }
    assert_eq!(repo.ledger_events("knowledge.retired").len(), 2);
    // The selection form: what `knowledge verified` lists with the filters.
    let run = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "retire",
            "--all-listed",
            "--episode",
            &episode_of(&keep),
            "--reason",
            "Pricing is computed on the fly now",
        ])
        .success();
    assert_eq!(run.json()["records"][0]["id"], keep.as_str());
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn promote_supersedes_decides_both_in_one_act_and_one_commit() {
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let new = decided(
        &repo,
        "Model pricing refresh is now async",
        "src/pricing.rs",
    );
    repo.git(&["add", "-A", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "The new candidate"]);
    let head = repo.head();
    let run = repo
        .run_with_stdin(
            &[
                "--format",
                "json",
                "knowledge",
                "promote",
                &new,
                "--supersedes",
                &old,
                "--commit",
            ],
            "src/pricing.rs spawns refresh()",
        )
        .success();
    let json = run.json();
    assert_eq!(json["promoted"][0]["id"], new.as_str(), "{json}");
    assert_eq!(json["superseded"][0]["id"], old.as_str(), "{json}");
    assert_eq!(json["superseded"][0]["superseded_by"], new.as_str());
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    let mut paths: Vec<String> = repo
        .git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect();
    paths.sort();
    let mut expected = vec![
        format!("{CANDIDATES}/{new}.md"),
        curated(&new),
        curated(&old),
    ];
    expected.sort();
    assert_eq!(paths, expected);
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("majordomus: review — promote 1, supersede 1\n"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "supersede {old} Model pricing refresh must stay synchronous (by {new})"
        )),
        "{message}"
    );
    let (front, body) = record(&repo, &curated(&old));
    assert_eq!(front["superseded_by"], new.as_str());
    assert!(
        body.contains("promoted in its place: Model pricing refresh is now async"),
        "{body}"
    );
    assert_eq!(repo.ledger_events("knowledge.superseded").len(), 1);
    assert_eq!(record(&repo, &curated(&new)).0["status"], "verified");

    // The single act (no --commit) does the same.
    let older = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let newer = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    let run = repo
        .run_with_stdin(
            &["knowledge", "promote", &newer, "--supersedes", &older],
            "src/trace.rs: TTL is 7 days",
        )
        .success();
    assert!(
        run.stdout().contains(&format!(
            "  superseded {older} Trace spans are kept for a day (by {newer}; {})",
            curated(&older)
        )),
        "{run}"
    );
    assert_eq!(record(&repo, &curated(&older)).0["status"], "superseded");
    repo.run(&["knowledge", "check"]).success();
}

/// Runs `args` (with `stdin`) expecting refusal `rule` (exit 3) and no file written; the
/// printed fix.
#[track_caller]
fn refused(repo: &TestRepo, args: &[&str], stdin: &str, rule: &str) -> String {
    let before = repo.files();
    let run = repo.run_with_stdin(args, stdin);
    assert_eq!(run.code(), 3, "{run}");
    assert!(run.stderr().starts_with("majordomus: "), "{run}");
    let json = repo
        .run_with_stdin(&[&["--format", "json"][..], args].concat(), stdin)
        .json();
    assert_eq!(json["error"]["rule"], rule, "{json}");
    let after = repo.files();
    let changed: Vec<&String> = after
        .iter()
        .filter(|(p, v)| !p.starts_with(".ai/local/") && before.get(*p).map(|b| &b.0) != Some(&v.0))
        .map(|(p, _)| p)
        .collect();
    assert!(changed.is_empty(), "a refusal wrote {changed:?}");
    let fixes = fix_lines(run.stderr());
    assert_eq!(fixes.len(), 1, "{run}");
    fixes[0].clone()
}

#[test]
fn every_refusal_names_its_rule_and_a_fix_that_works_as_printed() {
    let repo = project();
    let old = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let other = verified(
        &repo,
        "Trace ids are random",
        "src/trace.rs",
        "src/trace.rs: ids",
    );
    let unknown = format!("{}-0123456789ab", &old[..23]);

    // Unknown id: the fix lists what there is.
    let fix = refused(
        &repo,
        &["knowledge", "retire", &unknown, "--reason", "gone"],
        "",
        "knowledge.known-id",
    );
    assert_eq!(fix, "majordomus knowledge verified");
    assert!(repo.run_printed(&fix).contains(&old));

    // Superseding by itself: the fix retires it.
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &old, "--by", &old],
        "Spans live a week now",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!("majordomus knowledge retire {old} --reason 'Spans live a week now'")
    );

    // A candidate: reject it instead, as printed.
    let candidate = decided(
        &repo,
        "Trace spans are sampled at ten percent",
        "src/trace.rs",
    );
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "retire",
            &candidate,
            "--reason",
            "Sampling was dropped",
        ],
        "",
        "knowledge.verified-only",
    );
    assert_eq!(
        fix,
        format!("majordomus knowledge reject {candidate} --reason 'Sampling was dropped'")
    );
    repo.run_printed(&fix);
    assert_eq!(
        record(&repo, &format!("{CANDIDATES}/{candidate}.md")).0["status"],
        "superseded"
    );

    // A replacement that is a candidate: promote it superseding the old one, by hand.
    let replacement = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &old, "--by", &replacement],
        "Spans live a week now",
        "knowledge.replacement",
    );
    assert!(
        fix.starts_with("by hand: replace the text in angle brackets, then run: "),
        "{fix}"
    );
    let command = fix
        .trim_start_matches("by hand: replace the text in angle brackets, then run: ")
        .replace(
            "<what shows this holds: a test, a file, a command and its output>",
            "src/trace.rs: TTL is 7 days",
        );
    repo.run_printed(&command);
    assert_eq!(
        record(&repo, &curated(&old)).0["superseded_by"],
        replacement.as_str()
    );

    // Already superseded: the fix shows what replaced it.
    let fix = refused(
        &repo,
        &["knowledge", "retire", &old, "--reason", "gone"],
        "",
        "knowledge.superseded",
    );
    assert_eq!(fix, format!("majordomus knowledge show {replacement}"));
    repo.run_printed(&fix);

    // A replacement that is itself superseded: the fix supersedes by where its chain ends.
    let newest = verified(
        &repo,
        "Trace spans are kept for a month",
        "src/trace.rs",
        "src/trace.rs: TTL 30d",
    );
    repo.run_with_stdin(
        &["knowledge", "supersede", &replacement, "--by", &newest],
        "A month now",
    )
    .success();
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &other, "--by", &replacement],
        "Restated",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!("printf '%s\\n' Restated | majordomus knowledge supersede {other} --by {newest}")
    );
    repo.run_printed(&fix);
    assert_eq!(
        record(&repo, &curated(&other)).0["superseded_by"],
        newest.as_str()
    );

    // Superseding by itself with no reason: the ids are refused first, the fix by hand.
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &newest, "--by", &newest],
        "",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: majordomus knowledge retire {newest} --reason \"<why it no longer holds>\""
        )
    );
    // No reason, the ids standing: what to write, then the command.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "retire",
            &newest,
            "--reason",
            "<why it no longer holds>",
        ],
        "",
        "record.text",
    );
    let command = fix
        .trim_start_matches("by hand: replace the text in angle brackets, then run: ")
        .replace("<why it no longer holds>", "Spans are not kept at all now");
    repo.run_printed(&command);
    assert_eq!(record(&repo, &curated(&newest)).0["status"], "superseded");

    // Rejecting a verified record: the fix is the retire (or the supersede) that does it.
    let live = verified(
        &repo,
        "Trace export is JSON lines",
        "src/trace.rs",
        "src/trace.rs: export",
    );
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "reject",
            &live,
            "--reason",
            "Export is protobuf now",
        ],
        "",
        "knowledge.already-promoted",
    );
    assert_eq!(
        fix,
        format!("majordomus knowledge retire {live} --reason 'Export is protobuf now'")
    );
    repo.run_printed(&fix);
    assert_eq!(record(&repo, &curated(&live)).0["status"], "superseded");
    repo.run(&["knowledge", "check"]).success();
}

/// `fix` with its placeholder replaced by `text`: what a person runs.
#[track_caller]
fn by_hand(fix: &str, placeholder: &str, text: &str) -> String {
    let command = fix
        .strip_prefix("by hand: replace the text in angle brackets, then run: ")
        .unwrap_or_else(|| panic!("not a fix by hand: {fix}"));
    assert!(command.contains(placeholder), "{fix}");
    command.replace(placeholder, text)
}

#[test]
fn promote_superseding_itself_is_refused_first_and_the_fix_promotes_it() {
    let repo = project();
    let old = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let new = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    // The candidate names itself: refused as such (not as a candidate to reject, whose
    // fix would reject the very record being promoted); the fix promotes it, the evidence
    // again on stdin.
    let fix = refused(
        &repo,
        &["knowledge", "promote", &new, "--supersedes", &new],
        "src/trace.rs: TTL is 7 days\nand the test passes\n",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "printf '%s\\n' 'src/trace.rs: TTL is 7 days' 'and the test passes' | majordomus knowledge promote {new}"
        )
    );
    // With what else it supersedes, and --commit (a review): those are kept.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "promote",
            &new,
            "--supersedes",
            &new,
            "--supersedes",
            &old,
            "--commit",
        ],
        "src/trace.rs: TTL is 7 days",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "printf '%s\\n' 'src/trace.rs: TTL is 7 days' | majordomus knowledge promote {new} --supersedes {old} --commit"
        )
    );
    // No evidence: the fix says what to write.
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "promote",
            &new,
            "--supersedes",
            &new,
            "--class",
            "lesson",
        ],
        "",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: echo \"<what shows this holds: a test, a file, a command and its output>\" | majordomus knowledge promote {new} --class lesson"
        )
    );
    let head = repo.head();
    let fix = refused(
        &repo,
        &[
            "knowledge",
            "promote",
            &new,
            "--supersedes",
            &new,
            "--supersedes",
            &old,
            "--commit",
        ],
        "src/trace.rs: TTL is 7 days",
        "knowledge.replacement",
    );
    repo.run_printed(&fix);
    assert_eq!(record(&repo, &curated(&new)).0["status"], "verified");
    assert_eq!(
        record(&repo, &curated(&old)).0["superseded_by"],
        new.as_str()
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head);
    repo.run(&["knowledge", "check"]).success();

    // The single act, as printed.
    let other = decided(&repo, "Trace ids are sequential", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "promote", &other, "--supersedes", &other],
        "src/trace.rs: next_id()",
        "knowledge.replacement",
    );
    repo.run_printed(&fix);
    assert_eq!(record(&repo, &curated(&other)).0["status"], "verified");
    assert!(!repo.exists(&format!("{CANDIDATES}/{other}.md")));
}

#[test]
fn promote_superseding_a_candidate_prints_its_rejection_by_the_new_one() {
    let repo = project();
    let new = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    let candidate = decided(&repo, "Trace spans are kept for a day", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "promote", &new, "--supersedes", &candidate],
        "src/trace.rs: TTL is 7 days",
        "knowledge.verified-only",
    );
    // Nothing is promoted yet: the reason says what is true, and names the replacement.
    assert_eq!(
        fix,
        format!("majordomus knowledge reject {candidate} --by {new} --reason 'replaced by {new}'")
    );
    repo.run_printed(&fix);
    let (front, body) = record(&repo, &format!("{CANDIDATES}/{candidate}.md"));
    assert_eq!(front["status"], "superseded");
    assert_eq!(front["superseded_by"], new.as_str());
    assert!(
        body.ends_with(&format!("# Rejected\n\nreplaced by {new}\n")),
        "{body}"
    );
    // The promotion alone goes through after it.
    repo.run_with_stdin(
        &["knowledge", "promote", &new],
        "src/trace.rs: TTL is 7 days",
    )
    .success();
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn the_ids_are_refused_before_the_reason_and_a_fix_holding_a_placeholder_is_by_hand() {
    let repo = project();
    let live = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let newest = verified(
        &repo,
        "Trace spans are kept for a month",
        "src/trace.rs",
        "src/trace.rs: TTL 30d",
    );
    let middle = verified(
        &repo,
        "Trace spans are kept for a week",
        "src/trace.rs",
        "src/trace.rs: TTL 7d",
    );
    repo.run_with_stdin(
        &["knowledge", "supersede", &middle, "--by", &newest],
        "A month now",
    )
    .success();
    let unknown = format!("{}-0123456789ab", &live[..23]);

    // Retiring a candidate with no reason: the candidate is the refusal; its fix rejects
    // it, the reason written by hand.
    let candidate = decided(&repo, "Trace spans are sampled", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "retire", &candidate],
        "",
        "knowledge.verified-only",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: majordomus knowledge reject {candidate} --reason \"<why it does not hold>\""
        )
    );
    repo.run_printed(&by_hand(
        &fix,
        "<why it does not hold>",
        "Sampling was dropped",
    ));
    let (front, body) = record(&repo, &format!("{CANDIDATES}/{candidate}.md"));
    assert_eq!(front["status"], "superseded");
    assert!(
        body.ends_with("# Rejected\n\nSampling was dropped\n"),
        "{body}"
    );

    // Superseding a candidate with no reason: the same, replaced by the --by record.
    let candidate = decided(&repo, "Trace spans are exported", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &candidate, "--by", &live],
        "",
        "knowledge.verified-only",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: majordomus knowledge reject {candidate} --by {live} --reason \"<why it does not hold>\""
        )
    );
    repo.run_printed(&by_hand(
        &fix,
        "<why it does not hold>",
        "Export was dropped",
    ));
    assert_eq!(
        record(&repo, &format!("{CANDIDATES}/{candidate}.md")).0["superseded_by"],
        live.as_str()
    );

    // Unknown, and already ended, with no reason: those, not the reason.
    let fix = refused(
        &repo,
        &["knowledge", "retire", &unknown],
        "",
        "knowledge.known-id",
    );
    repo.run_printed(&fix);
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &middle, "--by", &live],
        "",
        "knowledge.superseded",
    );
    assert_eq!(fix, format!("majordomus knowledge show {newest}"));
    repo.run_printed(&fix);

    // A replacement itself superseded, with no reason: the supersede by where its chain
    // ends, the reason written by hand.
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &live, "--by", &middle],
        "",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: echo \"<why it no longer holds>\" | majordomus knowledge supersede {live} --by {newest}"
        )
    );
    // Superseding by itself beside another, with no reason: the others by it, by hand.
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &live, &newest, "--by", &newest],
        "",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: echo \"<why it no longer holds>\" | majordomus knowledge supersede {live} --by {newest}"
        )
    );
    repo.run_printed(&by_hand(&fix, "<why it no longer holds>", "A month now"));
    assert_eq!(
        record(&repo, &curated(&live)).0["superseded_by"],
        newest.as_str()
    );

    // Retiring a candidate alone by superseding it by itself: the fix is its rejection.
    let candidate = decided(&repo, "Trace spans are compressed", "src/trace.rs");
    let fix = refused(
        &repo,
        &["knowledge", "supersede", &candidate, "--by", &candidate],
        "Not compressed",
        "knowledge.replacement",
    );
    assert_eq!(
        fix,
        format!("majordomus knowledge reject {candidate} --reason 'Not compressed'")
    );
    repo.run_printed(&fix);
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn an_id_of_the_wrong_shape_is_answered_with_the_verified_records() {
    let repo = project();
    let live = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let candidate = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    for (args, stdin) in [
        (
            vec!["knowledge", "retire", "not-an-id", "--reason", "gone"],
            "",
        ),
        (vec!["knowledge", "retire", "not-an-id"], ""),
        (
            vec!["knowledge", "supersede", "not-an-id", "--by", live.as_str()],
            "gone",
        ),
        (
            vec!["knowledge", "supersede", live.as_str(), "--by", "not-an-id"],
            "gone",
        ),
        (
            vec![
                "knowledge",
                "promote",
                candidate.as_str(),
                "--supersedes",
                "not-an-id",
            ],
            "src/trace.rs: TTL is 7 days",
        ),
    ] {
        let fix = refused(&repo, &args, stdin, "id.shape");
        assert_eq!(fix, "majordomus knowledge verified", "{args:?}");
        assert!(repo.run_printed(&fix).contains(&live), "{args:?}");
    }
}

#[test]
fn a_superseded_record_without_its_reason_gets_a_fix_that_works_where_it_is() {
    let repo = project();
    let live = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let candidate = decided(&repo, "Trace spans are kept for a week", "src/trace.rs");
    let finding = |file: &str| -> Value {
        let run = repo.run(&["--format", "json", "knowledge", "check"]);
        assert_eq!(run.code(), 3, "{run}");
        let json = run.json();
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["file"] == file && f["rule"] == "knowledge.superseded-reason")
            .cloned()
            .unwrap_or_else(|| panic!("{file}: {json}"))
    };

    // A candidate marked superseded by hand: its rejection writes the reason.
    let file = format!("{CANDIDATES}/{candidate}.md");
    repo.write(
        &file,
        &repo
            .read(&file)
            .replacen("status: candidate", "status: superseded", 1),
    );
    let fix = finding(&file)["fix"].as_str().expect("fix").to_owned();
    assert_eq!(
        fix,
        format!(
            "by hand: replace the text in angle brackets, then run: majordomus knowledge reject {candidate} --reason \"<why it does not hold>\""
        )
    );
    repo.run_printed(&by_hand(
        &fix,
        "<why it does not hold>",
        "Spans are kept a day",
    ));
    assert!(
        record(&repo, &file)
            .1
            .ends_with("# Rejected\n\nSpans are kept a day\n")
    );
    repo.run(&["knowledge", "check"]).success();

    // A verified record marked superseded by hand: reject and retire refuse it; the fix
    // says what to write where.
    let file = curated(&live);
    repo.write(
        &file,
        &repo
            .read(&file)
            .replacen("status: verified", "status: superseded", 1),
    );
    let fix = finding(&file)["fix"].as_str().expect("fix").to_owned();
    assert_eq!(
        fix,
        format!(
            "by hand: add to the end of {file} a `# Superseded` section saying why it no longer holds, or name the record that replaces it in its front matter as `superseded_by: <its id>`"
        )
    );
    for (args, rule) in [
        (
            vec!["knowledge", "reject", live.as_str(), "--reason", "gone"],
            "knowledge.already-promoted",
        ),
        (
            vec!["knowledge", "retire", live.as_str(), "--reason", "gone"],
            "knowledge.superseded",
        ),
    ] {
        let run = repo.run(&[&["--format", "json"][..], &args].concat());
        run.json_error(3, rule);
    }
    // Done as it says, the record checks clean.
    repo.write(
        &file,
        &format!(
            "{}\n# Superseded\n\nRetired by hand: spans are kept a week now\n",
            repo.read(&file).trim_end()
        ),
    );
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn human_acts_are_offered_over_http_and_never_over_mcp() {
    let repo = project();
    let old = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    let new = verified(
        &repo,
        "Trace spans are kept for a week",
        "src/trace.rs",
        "src/trace.rs: TTL 7d",
    );
    let gone = verified(
        &repo,
        "Trace ids are random",
        "src/trace.rs",
        "src/trace.rs: ids",
    );
    let served = crate::http::Served::start(&repo);
    let listed = served.get("/api/v1/knowledge/verified").json();
    assert_eq!(
        listed["records"].as_array().map(Vec::len),
        Some(3),
        "{listed}"
    );
    let answer = served.send(
        "POST",
        "/api/v1/knowledge/supersede",
        &[("Content-Type", "application/json")],
        json!({"ids": [old], "by": new, "reason": "A week"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(answer.status, 401, "no token, no act");
    let done = served.post(
        "/api/v1/knowledge/supersede",
        &json!({"ids": [old], "by": new, "reason": "A week"}),
    );
    assert_eq!(done.status, 200, "{:?}", done.json());
    assert_eq!(
        record(&repo, &curated(&old)).0["superseded_by"],
        new.as_str()
    );
    served
        .post("/api/v1/knowledge/retire", &json!({"ids": [gone]}))
        .error(409, "record.text");
    let done = served.post(
        "/api/v1/knowledge/retire",
        &json!({"ids": [gone], "reason": "Ids are sequential"}),
    );
    assert_eq!(done.status, 200, "{:?}", done.json());
    drop(served);

    let mut mcp = crate::mcp::Mcp::start(&repo);
    let listed = mcp.request("tools/list", json!({}));
    let names: std::collections::BTreeSet<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for hidden in [
        "majordomus_knowledge_supersede",
        "majordomus_knowledge_retire",
        "majordomus_knowledge_promote",
    ] {
        assert!(!names.contains(hidden), "{hidden} is offered to agents");
    }
    // The listing they select from is a person's read: agents read verified knowledge
    // through recall.
    assert!(!names.contains("majordomus_knowledge_verified"));
    assert!(names.contains("majordomus_recall"));
}

// --- the stale finding names both ways out ------------------------------------------------

#[test]
fn the_stale_findings_fix_reverifies_as_printed_and_names_retire_and_supersede() {
    let repo = project();
    let id = verified(
        &repo,
        "Trace spans are kept for a day",
        "src/trace.rs",
        "src/trace.rs: TTL",
    );
    repo.commit(
        "src/trace.rs",
        "pub fn normalize() { /* a week */ }\n",
        "Keep spans a week",
    );
    let doctor = repo.run(&["doctor"]);
    let fixes: Vec<String> = fix_lines(doctor.stdout())
        .into_iter()
        .filter(|f| f.contains(&id))
        .collect();
    assert_eq!(
        fixes,
        [format!(
            "majordomus knowledge reverify {id}  # if it no longer holds: majordomus knowledge retire {id} --reason \"<why>\", or, when a verified record replaces it, echo \"<why>\" | majordomus knowledge supersede {id} --by <its id>"
        )],
        "{doctor}"
    );
    // The other way out, as the comment names it.
    let retire = fixes[0]
        .split("  # if it no longer holds: ")
        .nth(1)
        .and_then(|rest| rest.split(", or, when").next())
        .expect("the retire command")
        .replace("<why>", "Spans are kept a week");
    let copy = repo.copy();
    copy.run_printed(&retire);
    assert!(
        !copy
            .run(&["doctor"])
            .stdout()
            .contains("[majordomus.knowledge-stale]")
    );
    // The fix as printed: it re-verifies.
    repo.run_printed(&fixes[0]);
    assert!(repo.read(&curated(&id)).contains("Re-verified at commit"));
}

// --- item 5: a candidate claims nothing yet ------------------------------------------------

#[test]
fn a_candidate_citing_a_file_that_is_gone_blocks_nothing() {
    let repo = project();
    // Off the trunk: the candidate is written to candidates/ (not the outbox).
    repo.add_origin();
    repo.git(&["switch", "-q", "-c", "work"]);
    let pushed = repo.head();
    let id = decided(
        &repo,
        "Trace spans are sampled at ten percent",
        "src/trace.rs",
    );
    // The file goes before the commit that carries the candidate.
    repo.git(&["rm", "-q", "src/trace.rs"]);
    repo.git(&["add", "-A", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Drop the trace module"]);

    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success();
    let findings = check.json()["findings"].clone();
    let findings = findings.as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{check}");
    let file = format!("{CANDIDATES}/{id}.md");
    assert_eq!(findings[0]["file"], file.as_str());
    assert_eq!(findings[0]["rule"], "knowledge.ref-resolves");
    assert_eq!(findings[0]["severity"], "advisory");
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("reject it, or restore src/trace.rs")),
        "{check}"
    );
    let human = repo.run(&["knowledge", "check"]).success();
    assert!(
        human
            .stdout()
            .contains(&format!("WARN {file} [knowledge.ref-resolves]")),
        "{human}"
    );
    // pre-push judges the pushed tree the same way: nothing blocks.
    let line = format!("refs/heads/work {} refs/heads/work {pushed}\n", repo.head());
    let push = repo.run_with_stdin(
        &["--format", "json", "hook", "pre-push", "origin", "url"],
        &line,
    );
    assert_eq!(push.code(), 0, "{push}");
    assert_eq!(push.json()["findings"][0]["severity"], "advisory", "{push}");
    // Doctor's integrity rule says it, and nothing blocks.
    let doctor = repo.run(&["--format", "json", "doctor"]);
    assert_eq!(doctor.code(), 0, "{doctor}");
    let doctor = doctor.json();
    assert_eq!(doctor["blocking"], 0, "{doctor}");
    let integrity = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.knowledge-integrity")
        .cloned()
        .expect("integrity rule");
    assert_eq!(
        integrity["findings"][0]["severity"], "advisory",
        "{integrity}"
    );

    // Restoring the file is one way out ...
    let copy = repo.copy();
    copy.git(&["checkout", "HEAD~1", "--", "src/trace.rs"]);
    copy.git(&["commit", "-q", "-m", "Restore the trace module"]);
    assert_eq!(
        copy.run(&["knowledge", "check"]).success().stdout(),
        "knowledge check: 1 record(s), no findings\n"
    );
    // ... the fix, run as printed, the other.
    let fix = fix_lines(human.stdout());
    assert_eq!(
        fix,
        [format!(
            "majordomus knowledge reject {id} --reason 'cites src/trace.rs, which is gone'"
        )]
    );
    repo.run_printed(&fix[0]);
    assert_eq!(record(&repo, &file).0["status"], "superseded");

    // A verified record citing a file that is gone still blocks.
    let repo = project();
    let id = verified(
        &repo,
        "Trace spans are sampled at ten percent",
        "src/trace.rs",
        "src/trace.rs: sample()",
    );
    repo.git(&["rm", "-q", "src/trace.rs"]);
    repo.git(&["commit", "-q", "-m", "Drop the trace module"]);
    let check = repo.run(&["--format", "json", "knowledge", "check"]);
    assert_eq!(check.code(), 3, "{check}");
    assert_eq!(check.json()["findings"][0]["file"], curated(&id).as_str());
    assert_eq!(check.json()["findings"][0]["severity"], "blocking");
}

// --- item 3: never the old over the new -------------------------------------------------

/// What `hook NAME --provider claude-code` put before the model for `payload` ("" for
/// nothing).
fn injected(repo: &TestRepo, name: &str, payload: &Value) -> String {
    let run = repo
        .run_with_stdin(
            &["hook", name, "--provider", "claude-code"],
            &payload.to_string(),
        )
        .success();
    if run.stdout().is_empty() {
        return String::new();
    }
    let out: Value = serde_json::from_str(run.stdout()).expect("JSON");
    out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_superseded_or_retired_record_is_never_put_before_the_model_and_a_claim_has_one_status() {
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let retired = verified(
        &repo,
        "Model pricing refresh retries three times",
        "src/pricing.rs",
        "src/pricing.rs: for _ in 0..3",
    );
    let new = decided(
        &repo,
        "Model pricing refresh is now async",
        "src/pricing.rs",
    );
    repo.run_with_stdin(
        &["knowledge", "promote", &new, "--supersedes", &old],
        "src/pricing.rs spawns refresh()",
    )
    .success();
    repo.run(&[
        "knowledge",
        "retire",
        &retired,
        "--reason",
        "Retries moved to the scheduler",
    ])
    .success();
    repo.git(&["add", "-A", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Supersede and retire"]);

    // The briefing (what a session start injects): the current record, never the others.
    repo.run(&["session", "start"]).success();
    let briefing = repo.run(&["briefing"]).success();
    assert!(
        !briefing.stdout().contains(&old) && !briefing.stdout().contains(&retired),
        "{briefing}"
    );
    // The prompt that brought the old record in the field trial.
    repo.run(&["recall", "pricing"]).success();
    let prompt = json!({
        "session_id": "s1",
        "cwd": repo.root(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Go ahead and apply the pricing refresh change we agreed on: keep the model pricing refresh synchronous and retry it",
    });
    let said = injected(&repo, "prompt", &prompt);
    assert!(said.contains(&new), "the current record: {said}");
    assert!(!said.contains(&old) && !said.contains(&retired), "{said}");
    repo.run(&["session", "close"]).success();
    // An edit of the file all three cite.
    repo.run(&["session", "start"]).success();
    let edit = json!({
        "session_id": "s2",
        "cwd": repo.root(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": repo.root().join("src/pricing.rs"), "old_string": "a", "new_string": "b"},
    });
    let said = injected(&repo, "edit", &edit);
    assert!(said.contains(&new), "{said}");
    assert!(!said.contains(&old) && !said.contains(&retired), "{said}");
    // The agent's recall tool and what task start returns.
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let found = mcp.call(
        "majordomus_recall",
        json!({"query": "pricing refresh synchronous retries"}),
    );
    let text = found.to_string();
    assert!(
        text.contains(&new) && !text.contains(&old) && !text.contains(&retired),
        "{text}"
    );
    drop(mcp);
    let task = repo
        .run(&[
            "--format",
            "json",
            "task",
            "start",
            "Tune pricing",
            "--scope",
            "src/pricing.rs",
        ])
        .success();
    let text = task.stdout();
    assert!(
        text.contains(&new) && !text.contains(&old) && !text.contains(&retired),
        "{text}"
    );

    // `recall --all` lists them, each below what replaced it, naming it.
    let all = repo
        .run(&[
            "--format",
            "json",
            "recall",
            "--all",
            "--kind",
            "knowledge",
            "pricing",
            "refresh",
        ])
        .success()
        .json();
    let hits = all["hits"].as_array().expect("hits");
    let at = |id: &str| {
        hits.iter()
            .position(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {all}"))
    };
    assert!(at(&new) < at(&old), "{all}");
    let why = |id: &str| hits[at(id)]["why"].to_string();
    assert!(why(&old).contains(&format!("superseded by {new}")), "{all}");
    assert!(why(&retired).contains("retired"), "{all}");
    assert_eq!(hits[at(&old)]["superseded_by"], new.as_str());

    // One claim, one status: the decision the old record derives from is superseded too,
    // and names what superseded it.
    let decisions = repo
        .run(&[
            "--format", "json", "recall", "--all", "--kind", "decision", "pricing",
        ])
        .success()
        .json();
    let line = decisions["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .find(|h| h["id"] == old.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{decisions}"));
    assert_eq!(line["status"], "superseded");
    assert!(
        line["why"]
            .to_string()
            .contains(&format!("superseded by {new}")),
        "{line}"
    );

    // A record gone stale is stale as a decision too.
    repo.commit(
        "src/pricing.rs",
        "pub fn refresh() { spawn() }\n",
        "Spawn the refresh",
    );
    let status = |kind: &str| {
        let found = repo
            .run(&[
                "--format", "json", "recall", "--kind", kind, "pricing", "async",
            ])
            .success()
            .json();
        found["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .find(|h| h["id"] == new.as_str())
            .map(|h| h["status"].clone())
            .unwrap_or_else(|| panic!("{found}"))
    };
    assert_eq!(status("knowledge"), "stale");
    assert_eq!(status("decision"), "stale");
}

// --- item 4: evidence does not answer for others ------------------------------------------

/// What a prompt injects, in a fresh episode (nothing shown before).
fn prompted(repo: &TestRepo, prompt: &str) -> String {
    repo.run(&["session", "start"]).success();
    repo.run(&["recall", "pricing"]).success();
    let said = injected(
        repo,
        "prompt",
        &json!({
            "session_id": "s1",
            "cwd": repo.root(),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }),
    );
    repo.run(&["session", "close"]).success();
    said
}

#[test]
fn a_batchs_shared_evidence_makes_no_record_rank_for_what_only_the_evidence_names() {
    let repo = project();
    let ten: Vec<String> = [
        "Model prices are cached for an hour",
        "Pricing tiers are read from pricing.toml",
        "Model pricing refresh must stay synchronous",
        "Unknown models are priced at zero",
        "Prices are stored in micro-dollars",
        "Pricing errors never fail a request",
        "The pricing table is sorted by model name",
        "Currency conversion happens at display time",
        "Input and output tokens are priced apart",
        "Cached tokens are priced at a tenth",
    ]
    .iter()
    .map(|text| {
        repo.run(&["session", "start"]).success();
        repo.run(&["decision", text, "--file", "src/pricing.rs"])
            .success();
        repo.run(&["session", "close"]).success();
        (*text).to_owned()
    })
    .collect();
    assert_eq!(ten.len(), 10);
    // One evidence text for all ten, naming another module.
    let run = repo
        .run_with_stdin(
            &["--format", "json", "knowledge", "promote", "--all-listed", "--commit"],
            "Reviewed with the trace normalizer: src/trace.rs keeps completed root commands, and the pricing tests pass",
        )
        .success();
    let promoted: Vec<String> = run.json()["promoted"]
        .as_array()
        .expect("promoted")
        .iter()
        .filter_map(|p| p["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(promoted.len(), 10, "{run}");
    let prompt = "How many completed root commands does the trace normalizer keep?";

    // The evidence alone never clears the prompt floor: nothing is said.
    assert_eq!(prompted(&repo, prompt), "", "the evidence answered");
    // It is still searched: recall finds them by it, and says so.
    let found = repo
        .run(&["--format", "json", "recall", "trace", "normalizer"])
        .success()
        .json();
    let hits = found["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{found}");
    assert!(
        hits[0]["why"]
            .to_string()
            .contains("its evidence holds trace, normalizer"),
        "{found}"
    );

    // A record whose own claim holds the words: it, and none of the ten.
    let trace = verified(
        &repo,
        "The trace normalizer keeps completed root commands only",
        "src/trace.rs",
        "src/trace.rs: normalize() drops running commands",
    );
    let said = prompted(&repo, prompt);
    assert!(said.contains(&trace), "{said}");
    for id in &promoted {
        assert!(
            !said.contains(id.as_str()),
            "{id} answered for the trace normalizer: {said}"
        );
    }
    // And recall ranks it above every record only the evidence reaches.
    let found = repo
        .run(&[
            "--format",
            "json",
            "recall",
            "--limit",
            "20",
            "completed",
            "root",
            "commands",
            "trace",
            "normalizer",
        ])
        .success()
        .json();
    let hits = found["hits"].as_array().expect("hits");
    assert_eq!(hits[0]["id"], trace.as_str(), "{found}");
    assert_eq!(hits.len(), 11, "{found}");
}

// --- item 2: contradictions are shown where they are decided ------------------------------

/// A decision that cites no file reaches the files its episode's editing tools touched
/// (SPEC §5.2: "cite or reach"): a verified record about one of them, alike, is named; the
/// same words in an episode that touched another file name nothing.
#[test]
fn a_decision_citing_no_file_reaches_the_files_its_episode_touched() {
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    let touch = |path: &str| {
        let edit = json!({
            "session_id": "reach",
            "cwd": repo.root(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": repo.root().join(path), "old_string": "a", "new_string": "b"},
        });
        repo.run_with_stdin(
            &["hook", "edit", "--provider", "claude-code"],
            &edit.to_string(),
        )
        .success();
    };
    let decided = |text: &str| {
        repo.run(&["--format", "json", "decision", text])
            .success()
            .json()
    };
    // Another file touched: the same words concern nothing.
    repo.run(&["session", "start"]).success();
    touch("src/other.rs");
    let json = decided("Model pricing refresh is now async");
    assert!(json.get("concerns").is_none(), "{json}");
    repo.run(&["session", "close"]).success();
    // The record's file touched: named, with the file both concern.
    repo.run(&["session", "start"]).success();
    touch("src/pricing.rs");
    let json = decided("Model pricing refresh is now async");
    assert_eq!(json["concerns"][0]["id"], old.as_str(), "{json}");
    assert_eq!(json["concerns"][0]["files"], json!(["src/pricing.rs"]));
    let candidate = json["candidate"]
        .as_str()
        .expect("its candidate")
        .to_owned();
    // An unrelated claim in the same episode says nothing.
    let json = decided("Logs rotate daily at midnight");
    assert!(json.get("concerns").is_none(), "{json}");
    // The review queue shows the record under the candidate too, and only there.
    repo.run(&["session", "close"]).success();
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    for entry in listing["candidates"].as_array().expect("candidates") {
        if entry["id"] == candidate.as_str() {
            assert_eq!(entry["concerns"][0]["id"], old.as_str(), "{entry}");
            assert_eq!(entry["concerns"][0]["files"], json!(["src/pricing.rs"]));
        } else {
            assert!(entry.get("concerns").is_none(), "{entry}");
        }
    }
    assert!(listing.to_string().contains(&candidate), "{listing}");
}

#[test]
fn a_decision_about_a_verified_records_files_names_it_on_every_surface() {
    let repo = project();
    let old = verified(
        &repo,
        "Model pricing refresh must stay synchronous",
        "src/pricing.rs",
        "src/pricing.rs calls refresh() inline",
    );
    repo.run(&["session", "start"]).success();
    // The CLI: a note naming it, its likeness, and the flag that replaces it at review.
    let run = repo
        .run(&[
            "decision",
            "Model pricing refresh is now async",
            "--file",
            "src/pricing.rs",
        ])
        .success();
    let note = run
        .stderr()
        .lines()
        .find(|l| l.starts_with("note: concerns the same files as"))
        .unwrap_or_else(|| panic!("{run}"))
        .to_owned();
    assert!(
        note.starts_with(&format!(
            "note: concerns the same files as verified knowledge {old} (src/pricing.rs; 54% alike): ⟪Model pricing refresh must stay synchronous⟫ — restate, replace or keep both?"
        )),
        "{note}"
    );
    let json = repo
        .run(&[
            "--format",
            "json",
            "decision",
            "Model pricing refresh runs async in a task",
            "--file",
            "src/pricing.rs",
        ])
        .success()
        .json();
    assert_eq!(json["concerns"][0]["id"], old.as_str(), "{json}");
    assert_eq!(json["concerns"][0]["files"], json!(["src/pricing.rs"]));
    let candidate = json["candidate"]
        .as_str()
        .expect("the candidate it derives")
        .to_owned();
    // Advisory: another claim about the same file, or the same words about no file, say
    // nothing.
    for args in [
        &[
            "--format",
            "json",
            "decision",
            "Prices are displayed with two decimals",
            "--file",
            "src/pricing.rs",
        ][..],
        &[
            "--format",
            "json",
            "decision",
            "Model pricing refresh is now async everywhere",
        ],
    ] {
        let json = repo.run(args).success().json();
        assert!(json.get("concerns").is_none(), "{json}");
    }
    // MCP and HTTP say the same.
    let mut mcp = crate::mcp::Mcp::start(&repo);
    let result = mcp.call(
        "majordomus_decision_record",
        json!({"text": "Model pricing refresh became async", "files": ["src/pricing.rs"]}),
    );
    assert!(
        result.to_string().contains(&format!(
            "concerns the same files as verified knowledge {old}"
        )),
        "{result}"
    );
    drop(mcp);
    let served = crate::http::Served::start(&repo);
    let answer = served.post(
        "/api/v1/decisions",
        &json!({"text": "Model pricing refresh is async since the rewrite", "files": ["src/pricing.rs"]}),
    );
    assert_eq!(answer.status, 200, "{:?}", answer.json());
    assert_eq!(answer.json()["concerns"][0]["id"], old.as_str());
    drop(served);
    // The candidate it named is the one the close derives, and the queue shows the record
    // under it.
    repo.run(&["session", "close"]).success();
    let listing = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let entry = listing["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|c| c["id"] == candidate.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{candidate}: {listing}"));
    assert_eq!(entry["concerns"][0]["id"], old.as_str(), "{entry}");
}

/// Promoting with `--supersedes` and evidence that is only the template (the contradiction
/// note's command as printed) is refused for its evidence, and the fix keeps
/// `--supersedes`: filled in and run, it promotes the new record and ends the old one.
#[test]
fn an_evidence_refusal_of_promote_supersedes_keeps_the_old_record_in_its_fix() {
    let repo = project();
    let old = verified(
        &repo,
        "Uploads are capped at 1 MB",
        "src/pricing.rs",
        "src/pricing.rs: MAX_UPLOAD = 1 MB",
    );
    let new = decided(&repo, "Uploads are capped at 2 MB", "src/pricing.rs");
    for stdin in ["<evidence>", ""] {
        let run = repo.run_with_stdin(
            &[
                "--format",
                "json",
                "knowledge",
                "promote",
                &new,
                "--supersedes",
                &old,
            ],
            stdin,
        );
        assert_eq!(run.code(), 3, "{run}");
        let error = run.json()["error"].clone();
        assert_eq!(error["rule"], "knowledge.evidence", "{error}");
        let fix = error["fix"].as_str().expect("a fix").to_owned();
        let command = fix
            .strip_prefix("by hand: replace the text in angle brackets, then run: ")
            .unwrap_or_else(|| panic!("{fix}"));
        assert!(
            command.ends_with(&format!(
                "majordomus knowledge promote {new} --supersedes {old}"
            )),
            "{fix}"
        );
    }
    let run = repo.run_with_stdin(
        &[
            "--format",
            "json",
            "knowledge",
            "promote",
            &new,
            "--supersedes",
            &old,
        ],
        "<evidence>",
    );
    let fix = run.json()["error"]["fix"]
        .as_str()
        .expect("a fix")
        .to_owned();
    let command = fix
        .strip_prefix("by hand: replace the text in angle brackets, then run: ")
        .expect("by hand")
        .replace(
            "<what shows this holds: a test, a file, a command and its output>",
            "src/pricing.rs: MAX_UPLOAD = 2 MB",
        );
    repo.run_printed(&command);
    let (front, _) = record(&repo, &format!(".ai/repo/knowledge/curated/{old}.md"));
    assert_eq!(front["status"], "superseded", "{front}");
    assert_eq!(front["superseded_by"], new.as_str(), "{front}");
}

/// `promote <id> --commit` without evidence is refused, and its fix keeps `--commit`
/// (field trial, step 17 again): filled in and run as printed, it promotes the record and
/// commits it, as the refused command would have.
#[test]
fn an_evidence_refusal_of_promote_commit_keeps_the_commit_in_its_fix() {
    let repo = project();
    let new = decided(&repo, "Uploads are capped at 2 MB", "src/pricing.rs");
    let run = repo.run_with_stdin(
        &["--format", "json", "knowledge", "promote", &new, "--commit"],
        "",
    );
    assert_eq!(run.code(), 3, "{run}");
    let error = run.json()["error"].clone();
    assert_eq!(error["rule"], "knowledge.evidence", "{error}");
    let fix = error["fix"].as_str().expect("a fix").to_owned();
    let command = fix
        .strip_prefix("by hand: replace the text in angle brackets, then run: ")
        .unwrap_or_else(|| panic!("{fix}"));
    assert!(
        command.ends_with(&format!("majordomus knowledge promote {new} --commit")),
        "{fix}"
    );
    let before = repo.git(&["rev-parse", "HEAD"]);
    repo.run_printed(&command.replace(
        "<what shows this holds: a test, a file, a command and its output>",
        "src/pricing.rs: MAX_UPLOAD = 2 MB",
    ));
    assert!(
        repo.root()
            .join(format!(".ai/repo/knowledge/curated/{new}.md"))
            .exists()
    );
    assert_ne!(
        repo.git(&["rev-parse", "HEAD"]),
        before,
        "the fix committed"
    );
}

/// A path a prompt names is one word, its file's name (field trial, step 18, Found 1): a
/// prompt about `src/app/serving.py` does not reach records about the files beside it
/// through `src`, `app` and `py`; the record about the file it names still reaches it.
#[test]
fn a_path_in_a_prompt_is_one_word_not_its_directories() {
    let repo = project();
    for (path, body) in [
        ("src/app/serving.py", "def serve(): pass\n"),
        ("src/app/routing.py", "def route(): pass\n"),
        ("src/app/wsgi.py", "def app(): pass\n"),
    ] {
        repo.write(path, body);
    }
    repo.git(&["add", "src"]);
    repo.git(&["commit", "-q", "-m", "Add the app"]);
    let beside = [
        verified(
            &repo,
            "Routes in src/app/routing.py are matched longest first",
            "src/app/routing.py",
            "src/app/routing.py sorts rules by length",
        ),
        verified(
            &repo,
            "The WSGI entry in src/app/wsgi.py never buffers a response body",
            "src/app/wsgi.py",
            "src/app/wsgi.py streams the iterable",
        ),
    ];
    let serving = verified(
        &repo,
        "The development server in src/app/serving.py reloads on file changes",
        "src/app/serving.py",
        "src/app/serving.py runs a reloader thread",
    );
    let said = prompted(&repo, "Raise the request timeout in src/app/serving.py");
    for id in &beside {
        assert!(
            !said.contains(id.as_str()),
            "{id} reached through src, app, py: {said}"
        );
    }
    assert!(said.contains(&serving), "{said}");
}

/// A decision that nearly repeats a verified record about the same file (a value changed:
/// "1 MB" to "2 MB") is offered the same choice as a contradiction: its note names the
/// record and the command that replaces it (field trial, step 18, Found 2).
#[test]
fn a_near_repeat_of_a_verified_record_about_its_files_is_offered_the_replacement() {
    let repo = project();
    let old = verified(
        &repo,
        "Uploads in src/pricing.rs are capped at 1 MB",
        "src/pricing.rs",
        "src/pricing.rs: MAX_UPLOAD = 1 MB",
    );
    repo.run(&["session", "start"]).success();
    let run = repo
        .run(&[
            "decision",
            "Uploads in src/pricing.rs are capped at 2 MB",
            "--file",
            "src/pricing.rs",
        ])
        .success();
    let note = run
        .stderr()
        .lines()
        .find(|l| l.starts_with("note: this nearly repeats"))
        .unwrap_or_else(|| panic!("{run}"))
        .to_owned();
    assert!(note.contains(&old), "{note}");
    assert!(
        note.contains(
            "it concerns the same files (src/pricing.rs): restate, replace or keep both?"
        ) && note.contains(&format!("--supersedes {old}")),
        "{note}"
    );
}
