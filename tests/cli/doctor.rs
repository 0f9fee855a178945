//! `majordomus doctor` and `majordomus watch` (SPEC §5.5): the standard rules, exit 10 on a
//! blocking finding, advisories that only `watch` turns into an exit code (11).

use serde_json::{Value, json};

use crate::common::TestRepo;

/// The rule `rule` of a `doctor --format json` report.
#[track_caller]
pub(crate) fn rule(report: &Value, rule: &str) -> Value {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == rule)
        .unwrap_or_else(|| panic!("no rule {rule} in {report}"))
        .clone()
}

/// The `(rule, status)` of every rule that did not pass.
fn not_passing(report: &Value) -> Vec<(String, String)> {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| r["status"] != "pass")
        // An adopter's doctor always skips this one, saying so (tests/cli/rules.rs).
        .filter(|r| r["rule"] != "project.advisors-are-optional")
        .map(|r| {
            (
                r["rule"].as_str().expect("rule").to_owned(),
                r["status"].as_str().expect("status").to_owned(),
            )
        })
        .collect()
}

/// An initialised repository where one episode closed (and derived) and everything it
/// wrote is committed.
fn clean_repo() -> (TestRepo, String) {
    let repo = TestRepo::initialised();
    // A catalogue of the repository's own, so what is installed on this machine does not
    // change the advisors' information line.
    repo.write(
        ".ai/repo/advisors.yaml",
        "advisors:\n  - id: reviewer\n    title: Reviewer\n    adapter: fixture\n    capabilities: [independent_reasoning, code_review]\n",
    );
    let episode = repo.start_episode();
    repo.run(&["decision", "All git reads go through gix"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the episode"]);
    (repo, episode)
}

#[test]
fn doctor_passes_a_clean_repository() {
    let (repo, _) = clean_repo();
    let run = repo.run(&["doctor"]).success();
    insta::assert_snapshot!("doctor_clean", run.stdout());
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(report["blocking"], 0);
    assert_eq!(report["advisory"], 0);
    assert_eq!(not_passing(&report), Vec::<(String, String)>::new());
    let run = repo.run(&["watch", "--max-runs", "1"]);
    assert_eq!(run.code(), 0, "{run}");
}

#[test]
fn doctor_skips_freshness_when_the_ledger_never_derived() {
    let mut repo = TestRepo::initialised();
    repo.write_policy("session:\n  knowledge_on_end: false\n");
    repo.start_episode();
    repo.run(&["session", "close"]).success();
    repo.now("2026-12-05T10:00:00Z");

    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().starts_with(
            "ok   majordomus.rule-set\nok   majordomus.policy-valid\nskip majordomus.knowledge-observed\n     skipped: this ledger has no knowledge.derived line at all, so freshness is not judged\n"
        ),
        "{run}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let observed = rule(&report, "majordomus.knowledge-observed");
    assert_eq!(observed["status"], "skipped");
    assert!(
        observed["note"]
            .as_str()
            .is_some_and(|n| n.contains("no knowledge.derived line at all")),
        "{observed}"
    );
    assert_eq!(report["blocking"], 0);
}

#[test]
fn doctor_blocks_on_a_stale_close_that_was_never_derived() {
    let (mut repo, _) = clean_repo();
    repo.write_policy("session:\n  knowledge_on_end: false\n");
    repo.now("2026-11-30T11:00:00Z");
    let episode = repo.start_episode();
    repo.run(&["decision", "Parse YAML with yaml_serde"])
        .success();
    repo.run(&["session", "close"]).success();
    assert_eq!(repo.ledger_events("knowledge.derived").len(), 1);

    // Younger than session.freshness.stale_minutes (120): no finding yet.
    repo.now("2026-11-30T13:00:00Z");
    repo.run(&["doctor"]).success();

    repo.now("2026-11-30T13:01:00Z");
    let run = repo.run(&["doctor"]).expect_code(10);
    let stdout = run.stdout();
    assert!(
        stdout.starts_with(&format!(
            "ok   majordomus.rule-set\nok   majordomus.policy-valid\nFAIL majordomus.knowledge-observed\n     BLOCK .ai/local/ledger.jsonl [majordomus.knowledge-observed] episode {episode} closed 121 minutes ago and no knowledge.derived names it (stale after 120 minutes); see it: majordomus history --event session.closed --event knowledge.derived --since 2026-11-30T11:00:00Z\n       fix: majordomus knowledge derive --episode {episode}\n"
        )),
        "{run}"
    );
    // The reproduction is read-only and runs as printed: the close, and every derivation
    // since (none names the episode).
    let ledger = repo.ledger_text();
    let see = stdout
        .split("see it: ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("the reproduction");
    let out = repo.sh_in(repo.root(), see);
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 1, "{printed}");
    assert!(
        lines[0].contains(" session.closed session=") && lines[0].contains(&episode),
        "{printed}"
    );
    assert_eq!(repo.ledger_text(), ledger, "the reproduction wrote nothing");
    assert!(
        stdout.ends_with("doctor: 1 blocking, 0 advisory finding(s)\n"),
        "{run}"
    );
    let report = repo
        .run(&["--format", "json", "doctor"])
        .expect_code(10)
        .json();
    assert_eq!(report["blocking"], 1);
    assert_eq!(
        rule(&report, "majordomus.knowledge-observed")["findings"][0]["severity"],
        "blocking"
    );
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 10);

    // The fix it names clears it.
    repo.run(&["knowledge", "derive", "--episode", &episode])
        .success();
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the second episode"]);
    repo.run(&["doctor"]).success();
}

#[test]
fn doctor_blocks_when_a_close_with_knowledge_on_end_left_no_knowledge_derived() {
    let (repo, _) = clean_repo();
    let episode = repo.start_episode();
    repo.run(&["decision", "Parse YAML with yaml_serde"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.run(&["doctor"]).success();

    // A close path that did not derive (an older version, a crash): the close ran with
    // session.knowledge_on_end on, yet no knowledge.derived names the episode.
    let ledger: String = repo
        .ledger_text()
        .lines()
        .filter(|l| !(l.contains("\"knowledge.derived\"") && l.contains(&episode)))
        .map(|l| format!("{l}\n"))
        .collect();
    repo.write(".ai/local/ledger.jsonl", &ledger);
    let report = repo
        .run(&["--format", "json", "doctor"])
        .expect_code(10)
        .json();
    let finding = &rule(&report, "majordomus.knowledge-observed")["findings"][0];
    assert_eq!(
        finding["message"],
        format!(
            "episode {episode} closed with session.knowledge_on_end on, but its close path did not derive; see it: majordomus history --event session.closed --event knowledge.derived --since 2026-11-30T10:00:00Z"
        )
        .as_str()
    );
    assert_eq!(
        finding["fix"],
        format!("majordomus knowledge derive --episode {episode}").as_str()
    );

    // A close that ran with knowledge_on_end off is judged by age only, whatever the
    // policy says now.
    repo.run(&["knowledge", "derive", "--episode", &episode])
        .success();
    repo.write_policy("session:\n  knowledge_on_end: false\n");
    let second = repo.start_episode();
    repo.run(&["session", "close"]).success();
    repo.write_policy("session:\n  knowledge_on_end: true\n");
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        rule(&report, "majordomus.knowledge-observed")["status"],
        "pass",
        "{second}"
    );
}

#[test]
fn doctor_blocks_on_a_knowledge_integrity_finding() {
    let (repo, episode) = clean_repo();
    let id = format!("{episode}-0123456789ab");
    repo.write(
        &format!(".ai/repo/knowledge/candidates/{id}.md"),
        &format!(
            "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: A claim\ndate: 2026-11-30\nprovenance:\n  origin: authored\n  derived_from:\n  - decision:none\n---\nA claim.\n"
        ),
    );
    let report = repo
        .run(&["--format", "json", "doctor"])
        .expect_code(10)
        .json();
    let integrity = rule(&report, "majordomus.knowledge-integrity");
    assert_eq!(integrity["status"], "fail");
    assert_eq!(
        integrity["findings"][0]["rule"],
        "knowledge.ref-placeholder"
    );
}

#[test]
fn doctor_warns_about_torn_ledger_lines_without_failing() {
    let (repo, _) = clean_repo();
    // A crash mid-append: a torn tail, then the next append.
    let mut ledger = repo.ledger_text();
    ledger.push_str("{\"seq\":99,\"ts\":\"2026-11-30T10:");
    repo.write(".ai/local/ledger.jsonl", &ledger);
    repo.start_episode();

    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().contains("WARN majordomus.ledger-health\n"),
        "{run}"
    );
    assert!(
        run.stdout()
            .contains("     WARN .ai/local/ledger.jsonl [majordomus.ledger-health] line "),
        "{run}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(report["blocking"], 0);
    assert_eq!(report["advisory"], 1);
    assert_eq!(
        not_passing(&report),
        [("majordomus.ledger-health".to_owned(), "fail".to_owned())]
    );
    assert_eq!(
        rule(&report, "majordomus.ledger-health")["findings"][0]["severity"],
        "advisory"
    );
    // Ledger health is doctor's; watch reruns the drift rules only.
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 0);
}

#[test]
fn doctor_warns_about_an_untracked_candidate() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.run(&["decision", "All git reads go through gix"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo/sessions"]);
    repo.git(&["commit", "-q", "-m", "Record the session only"]);
    let path = format!(
        ".ai/repo/knowledge/candidates/{}.md",
        repo.record_ids(".ai/repo/knowledge/candidates")[0]
    );

    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().contains(&format!(
            "WARN majordomus.candidates-reviewed\n     WARN {path} [majordomus.candidates-reviewed] git does not track this candidate\n       fix: git add {path}\n"
        )),
        "{run}"
    );
    // The review queue is doctor's alone: it never fails watch (SPEC §5.5).
    let run = repo.run(&["watch", "--max-runs", "1"]);
    assert_eq!(run.code(), 0, "{run}");
    assert!(!run.stdout().contains("candidates-reviewed"), "{run}");

    repo.git(&["add", &path]);
    repo.git(&["commit", "-q", "-m", "Track the candidate"]);
    repo.run(&["doctor"]).success();
}

#[test]
fn doctor_folds_untracked_candidates_into_one_finding_whose_fix_works_as_printed() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    for n in 1..=5 {
        repo.run(&[
            "decision",
            &format!("Parser stage {n} reads its input once"),
        ])
        .success();
    }
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai/repo/sessions"]);
    repo.git(&["commit", "-q", "-m", "Record the session only"]);
    let dir = ".ai/repo/knowledge/candidates";
    let ids = repo.record_ids(dir);
    assert_eq!(ids.len(), 5, "{ids:?}");

    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let reviewed = rule(&report, "majordomus.candidates-reviewed");
    let findings = reviewed["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{reviewed}");
    let f = &findings[0];
    assert_eq!(f["rule"], "majordomus.candidates-reviewed");
    assert_eq!(f["severity"], "advisory");
    assert_eq!(f["file"], format!("{dir}/"));
    assert_eq!(f["message"], "git does not track this candidate");
    assert_eq!(f["folded"]["count"], 5);
    let mut files: Vec<String> = f["folded"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|p| p.as_str().expect("path").to_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = ids.iter().map(|id| format!("{dir}/{id}.md")).collect();
    expected.sort();
    assert_eq!(files, expected);
    assert_eq!(f["fix"], format!("git add {dir}"));
    // The count is of findings: one.
    assert_eq!(report["advisory"], 1, "{report}");

    let run = repo.run(&["doctor"]).success();
    let names: Vec<String> = f["folded"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|p| {
            p.as_str()
                .expect("path")
                .trim_start_matches(&format!("{dir}/"))
                .to_owned()
        })
        .collect();
    assert!(
        run.stdout().contains(&format!(
            "     WARN {dir}/ [majordomus.candidates-reviewed] git does not track this candidate (5 files: {})\n       fix: git add {dir}\n",
            names.join(", ")
        )),
        "{run}"
    );

    // The fix, run exactly as printed, clears the finding.
    repo.run_printed(f["fix"].as_str().expect("fix"));
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let reviewed = rule(&report, "majordomus.candidates-reviewed");
    assert_eq!(reviewed["status"], "pass", "{reviewed}");
}

#[test]
fn doctor_warns_about_a_candidate_waiting_too_long_and_says_how_it_measured() {
    let (mut repo, _) = clean_repo();
    repo.now("2026-12-07T10:00:00Z");
    repo.run(&["doctor"]).success();
    repo.now("2026-12-07T10:01:00Z");
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let reviewed = rule(&report, "majordomus.candidates-reviewed");
    assert_eq!(
        reviewed["findings"].as_array().map(Vec::len),
        Some(1),
        "{reviewed}"
    );
    let message = reviewed["findings"][0]["message"]
        .as_str()
        .expect("message");
    assert_eq!(
        message,
        "awaiting review for 10081 minutes (limit 10080), measured from the oldest knowledge.derived naming it"
    );
    // A full review queue never fails watch.
    assert_eq!(repo.run(&["watch", "--max-runs", "1"]).code(), 0);
}

#[test]
fn watch_exits_0_when_clean_and_11_on_an_advisory_finding() {
    let (repo, _) = clean_repo();
    let run = repo.run(&["watch", "--max-runs", "1", "--interval", "0"]);
    assert_eq!(run.code(), 0, "{run}");
    assert!(
        run.stdout()
            .ends_with("doctor: 0 blocking, 0 advisory finding(s)\n"),
        "{run}"
    );
    // A drift advisory: a record names a commit git rewrote (the post-rewrite hook's line).
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    let old = "0123456789abcdef0123456789abcdef01234567";
    repo.write(
        &format!(".ai/repo/knowledge/candidates/{id}.md"),
        &crate::common::knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}"), &format!("commit:{old}")],
            "",
            "Claim.",
        ),
    );
    repo.append_ledger_line(
        "commit.rewritten",
        None,
        json!({"by": "rebase", "pairs": [{"old": old, "new": repo.head()}]}),
    );
    let run = repo.run(&["watch", "--max-runs", "1"]);
    assert_eq!(run.code(), 11, "{run}");
    assert!(
        run.stdout()
            .ends_with("doctor: 0 blocking, 1 advisory finding(s)\n"),
        "{run}"
    );
    assert!(run.stdout().contains("knowledge.commit-rewritten"), "{run}");
    // `doctor` itself does not fail on an advisory.
    repo.run(&["doctor"]).success();
}

#[test]
fn watch_does_not_stop_on_an_advisory_whose_fix_is_that_nothing_needs_doing() {
    let (repo, _) = clean_repo();
    let episode = repo.start_episode();
    // A squash merge elsewhere: a tracked session record lists a commit this clone never
    // had, and a record names it.
    let gone = "0123456789abcdef0123456789abcdef01234567";
    let record = format!(
        "---\nid: 20261129T090000Z-aaaaaa\nschema: session/v1\nprovider: cli\nbranch: feature\nhead_at_open: null\nhead: {gone}\nopened: 2026-11-29T09:00:00Z\nclosed: 2026-11-29T10:00:00Z\ncommits:\n- {gone}\nchanged_files: []\ntasks: []\noutcome: committed\n---\n# Session 20261129T090000Z-aaaaaa\n"
    );
    repo.write(".ai/repo/sessions/20261129T090000Z-aaaaaa.md", &record);
    let id = format!("{episode}-0123456789ab");
    repo.write(
        &format!(".ai/repo/knowledge/candidates/{id}.md"),
        &crate::common::knowledge_record(
            &id,
            "candidate",
            &[&format!("session:{episode}"), &format!("commit:{gone}")],
            "",
            "Claim.",
        ),
    );
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "A record naming a squashed commit"]);
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    assert_eq!(check["findings"][0]["rule"], "knowledge.commit-rewritten");
    assert_eq!(check["findings"][0]["informational"], true);
    assert!(
        check["findings"][0]["fix"]
            .as_str()
            .is_some_and(|f| f.starts_with("nothing needs doing")),
        "{check}"
    );
    let run = repo.run(&["watch", "--max-runs", "1", "--interval", "0"]);
    assert_eq!(run.code(), 0, "{run}");
    assert!(
        run.stdout().ends_with(
            "doctor: 0 blocking, 0 advisory finding(s), 1 informational (nothing needs doing)\n"
        ),
        "{run}"
    );
    assert!(
        run.stdout().contains("INFO .ai/repo/knowledge/candidates/"),
        "{run}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        (report["advisory"].clone(), report["informational"].clone()),
        (json!(0), json!(1))
    );
}

// --- majordomus.session-commits -------------------------------------------------------------

/// Runs `git ARGS` at the root through majordomus's installed hooks; panics unless it
/// succeeds.
fn git_hooked(repo: &TestRepo, args: &[&str]) {
    let out = repo
        .git_command_in(repo.root(), args)
        .env("MAJORDOMUS_BIN", crate::common::bin())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("spawn git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Someone else's commit of `path` on the origin's `main`, made in a clone of their own and
/// fetched here; its id.
fn trunk_commit_by_someone_else(repo: &TestRepo, path: &str) -> String {
    let theirs = repo.base().join("theirs");
    if !theirs.exists() {
        repo.git_in(repo.base(), &["clone", "-q", "origin.git", "theirs"]);
    }
    repo.git_in(&theirs, &["pull", "-q", "--ff-only", "origin", "main"]);
    std::fs::write(theirs.join(path), "theirs\n").expect("write their file");
    repo.git_in(&theirs, &["add", "--", path]);
    repo.git_in(&theirs, &["commit", "-q", "-m", &format!("Their {path}")]);
    repo.git_in(&theirs, &["push", "-q", "origin", "main"]);
    let id = repo.git_in(&theirs, &["rev-parse", "HEAD"]);
    repo.git(&["fetch", "-q", "origin"]);
    id
}

/// `text` with the YAML list under `key:` replaced by `items`.
fn with_list(text: &str, key: &str, items: &[&str]) -> String {
    let start = text.find(&format!("\n{key}:\n")).expect("the key") + 1;
    let end = text[start..]
        .find("\n")
        .map(|n| start + n + 1)
        .expect("the key's line");
    let rest = text[end..]
        .lines()
        .skip_while(|l| l.starts_with("- "))
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    let list: String = items.iter().map(|i| format!("- {i}\n")).collect();
    format!("{}{list}{rest}", &text[..end])
}

#[test]
fn a_merged_episodes_record_is_not_named_in_a_clone_made_after_it() {
    // An episode on a branch, merged into the trunk and pushed. A clone made afterwards
    // has no reflog of where the trunk stood when the episode opened (its remote-tracking
    // ref is first logged at a later fetch): the record is not judged by it, before or
    // after that fetch.
    let mut repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    repo.write("mine.txt", "m\n");
    git_hooked(&repo, &["add", "mine.txt"]);
    git_hooked(&repo, &["commit", "-q", "-m", "My work"]);
    repo.now("2026-11-30T10:02:00Z");
    repo.run(&["session", "close"]).success();
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "The record"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "-m", "Merge feature", "feature"]);
    repo.git(&["push", "-q", "origin", "main"]);
    let fresh = repo.base().join("fresh");
    repo.git_in(repo.base(), &["clone", "-q", "origin.git", "fresh"]);
    let passes = |repo: &TestRepo, when: &str| {
        let report = repo
            .run_in(&fresh, &["--format", "json", "doctor"])
            .success()
            .json();
        assert_eq!(
            rule(&report, "majordomus.session-commits")["status"],
            "pass",
            "{when}: {report}"
        );
    };
    passes(&repo, "just cloned");
    repo.now("2026-11-30T11:00:00Z");
    trunk_commit_by_someone_else(&repo, "later.txt");
    repo.git_in(&fresh, &["pull", "-q", "--ff-only"]);
    passes(&repo, "after its first pull");
    assert!(
        repo.read(&format!(".ai/repo/sessions/{episode}.md"))
            .contains("mine.txt")
    );
}

#[test]
fn a_record_listing_trunk_commits_is_named_and_its_fix_composes_it_again() {
    let mut repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // The trunk before the episode: one commit a minute earlier, one in its very second.
    repo.now("2026-11-30T09:59:00Z");
    let before = trunk_commit_by_someone_else(&repo, "before.txt");
    repo.now("2026-11-30T10:00:00Z");
    let same_second = trunk_commit_by_someone_else(&repo, "same.txt");
    let episode = repo.start_episode();
    repo.now("2026-11-30T10:01:00Z");
    repo.write("mine.txt", "m\n");
    git_hooked(&repo, &["add", "mine.txt"]);
    git_hooked(&repo, &["commit", "-q", "-m", "My work"]);
    // The trunk during the episode, then the rebase onto it.
    repo.now("2026-11-30T10:02:00Z");
    let during = trunk_commit_by_someone_else(&repo, "during.txt");
    repo.now("2026-11-30T10:03:00Z");
    git_hooked(&repo, &["rebase", "-q", "origin/main"]);
    let mine = repo.head();
    repo.now("2026-11-30T10:04:00Z");
    repo.run_with_stdin(&["session", "close"], "Rebased onto the trunk.")
        .success();
    let path = format!(".ai/repo/sessions/{episode}.md");
    let written = repo.read(&path);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        rule(&report, "majordomus.session-commits")["status"],
        "pass"
    );

    // What a version before the rule wrote: the trunk's commits and files too.
    let old = with_list(
        &with_list(
            &written,
            "commits",
            &[&before, &same_second, &during, &mine],
        ),
        "changed_files",
        &["before.txt", "during.txt", "mine.txt", "same.txt"],
    );
    repo.write(&path, &old);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(report["blocking"], 0, "advisory: {report}");
    let result = rule(&report, "majordomus.session-commits");
    assert_eq!(result["status"], "fail", "{result}");
    let findings = result["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{result}");
    assert_eq!(findings[0]["file"], path.as_str());
    assert_eq!(findings[0]["severity"], "advisory");
    assert_eq!(
        findings[0]["message"],
        format!(
            // The trunk's move in the very second the episode opened may have come after
            // it (a reflog has seconds only): not "on the trunk when the episode opened",
            // but not the episode's by its hook lines either.
            "session record of episode {episode} lists 3 commit(s) that are not the episode's own: {} (committed before the episode opened); {} (not its own by its hook lines in this ledger and git); {} (not its own by its hook lines in this ledger and git)",
            &before[..12],
            &same_second[..12],
            &during[..12]
        )
    );
    let fix = findings[0]["fix"].as_str().expect("fix");
    assert_eq!(fix, format!("majordomus session recompose {episode}"));
    let printed = repo.run_printed(fix);
    assert!(printed.contains("no longer listed: "), "{printed}");
    // What the close wrote, byte for byte.
    assert_eq!(repo.read(&path), written);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        rule(&report, "majordomus.session-commits")["status"],
        "pass"
    );
}

#[test]
fn a_record_of_an_episode_this_ledger_does_not_know_says_what_to_do_by_hand() {
    let mut repo = TestRepo::initialised();
    repo.add_origin();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.now("2026-11-30T09:59:00Z");
    let trunk = trunk_commit_by_someone_else(&repo, "trunk.txt");
    repo.now("2026-11-30T10:05:00Z");
    let id = "20261130T100000Z-0a0b0c";
    let head = repo.head();
    repo.write(
        &format!(".ai/repo/sessions/{id}.md"),
        &format!(
            "---\nid: {id}\nschema: session/v1\nprovider: cli\nbranch: feature\nhead_at_open: {head}\nhead: {head}\nopened: 2026-11-30T10:00:00Z\nclosed: 2026-11-30T10:04:00Z\ncommits:\n- {trunk}\nchanged_files:\n- trunk.txt\ntasks: []\noutcome: committed\n---\n# Session {id}\n"
        ),
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let result = rule(&report, "majordomus.session-commits");
    let findings = result["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{result}");
    let fix = findings[0]["fix"].as_str().expect("fix");
    assert!(
        fix.starts_with(&format!(
            "by hand: this clone's ledger does not know episode {id}; remove {trunk} from `commits:`"
        )),
        "{fix}"
    );
    // The command it names is refused here, as the fix says.
    repo.run(&["--format", "json", "session", "recompose", id])
        .json_error(3, "session.known-episode");
}

#[test]
fn sharing_the_journal_with_no_pre_push_hook_is_a_finding_whose_fix_works_as_printed() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["journal", "enable"]).success();

    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let pushed = rule(&report, "majordomus.journal-pushed");
    assert_eq!(pushed["status"], "fail", "{pushed}");
    let findings = pushed["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{pushed}");
    let f = &findings[0];
    assert_eq!(f["rule"], "majordomus.journal-pushed");
    assert_eq!(f["severity"], "advisory");
    assert_eq!(f["file"], ".git/hooks/pre-push");
    let message = f["message"].as_str().expect("message");
    assert!(
        message.contains("publishes its journal to origin")
            && message.contains("not installed")
            && message.ends_with("the journal's pending lines will never be pushed"),
        "{message}"
    );
    assert_eq!(f["fix"], "majordomus hooks install");
    // Advisory: doctor passes, watch (which runs only the drift rules) is not stopped.
    assert_eq!(report["blocking"], 0);

    repo.run_printed(f["fix"].as_str().expect("fix"));
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        rule(&report, "majordomus.journal-pushed")["status"],
        "pass",
        "{report}"
    );

    // A hooks directory git uses that does not reach majordomus (core.hooksPath moved)
    // is found the same way, with the fix the hooks rule gives.
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let pushed = rule(&report, "majordomus.journal-pushed");
    assert_eq!(
        pushed["findings"][0]["rule"], "majordomus.journal-pushed",
        "{pushed}"
    );
    assert_eq!(
        pushed["findings"][0]["file"], ".githooks/pre-push",
        "{pushed}"
    );
    let hooks = rule(&report, "majordomus.hooks-reached");
    let same_fix = hooks["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|h| h["file"] == ".githooks/pre-push")
        .map(|h| h["fix"].clone());
    assert_eq!(same_fix, Some(pushed["findings"][0]["fix"].clone()));

    // Sharing off: nothing to push, nothing found.
    repo.git(&["config", "--unset", "core.hooksPath"]);
    repo.run(&["journal", "disable"]).success();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(rule(&report, "majordomus.journal-pushed")["status"], "pass");
}

/// Advisor availability is information: a line of its own rule, never a finding, whatever
/// the advisors' states, and read without contacting any model.
#[test]
fn doctor_shows_advisor_availability_as_information() {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/advisors.yaml",
        "advisors:
  - id: alpha
    title: Alpha
    adapter: fixture
    capabilities: [independent_reasoning, code_review]
  - id: beta
    title: Beta
    adapter: process
    executable: majordomus-no-such-advisor
    capabilities: [independent_reasoning]
  - id: gamma
    title: Gamma
    adapter: fixture
    credential: MAJORDOMUS_TEST_NO_SUCH_KEY
    capabilities: [code_review]
",
    );
    let run = repo
        .run_env(&["doctor"], &[("MAJORDOMUS_ADVISORS_DISABLE", "alpha")], "")
        .success();
    assert!(
        run.stdout().contains(
            "ok   majordomus.advisors-available\n     information: advisors: mode standard (policy); alpha disabled, beta unavailable, gamma not_configured; admissible/offering per capability: code_review 0/2, independent_reasoning 0/2\n"
        ),
        "{run}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let info = rule(&report, "majordomus.advisors-available");
    assert_eq!(info["status"], "pass", "{info}");
    assert_eq!(info["severity"], "advisory", "{info}");
    assert_eq!(info["findings"], json!([]), "{info}");
    assert!(
        info["note"]
            .as_str()
            .is_some_and(|n| n.contains("alpha available, beta unavailable")
                && n.contains("code_review 1/2")),
        "{info}"
    );
    assert_eq!(report["advisory"], 0);
    // The catalogue cannot be read: said, skipped, never a finding here.
    repo.write(".ai/repo/advisors.yaml", "advisors: [\n");
    let report = repo.run(&["--format", "json", "doctor"]).json();
    let info = rule(&report, "majordomus.advisors-available");
    assert_eq!(info["status"], "skipped", "{info}");
    assert_eq!(info["findings"], json!([]), "{info}");
}

/// The files under `dir` (recursively) whose name ends with one of `ends`.
fn sources_under(dir: &std::path::Path, ends: &[&str], out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources_under(&path, ends, out);
        } else if ends.iter().any(|e| path.to_string_lossy().ends_with(e)) {
            out.push(path);
        }
    }
}

/// A heading's text as a pointer names it, and its GitHub anchor.
fn headings(doc: &str) -> Vec<(String, String)> {
    let mut fenced = false;
    doc.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(|l| {
            let text = l.trim_start_matches('#').trim().to_owned();
            let anchor: String = text
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            (text, anchor)
        })
        .collect()
}

/// Every pointer to the docs that majordomus prints or its source gives a reader
/// (`docs/RULES.md`, `docs/RULES.md, "Stale knowledge"`, `docs/HOOKS.md#wiring-a-hook-by-hand`)
/// names a file that exists and, when it names a section, a heading of that file: a
/// finding that sends a reader to a section that is elsewhere costs them the search.
#[test]
fn every_doc_pointer_names_a_file_and_a_section_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "share", "hooks"] {
        sources_under(
            &root.join(dir),
            &[".rs", ".yaml", ".md", ".txt", ".sh"],
            &mut files,
        );
    }
    files.sort();
    // A pointer may run over a comment's line break: the lines are joined first.
    let joins = regex::Regex::new(r#"\s*\n\s*(?://[/!]?|#)?\s*"#).expect("a regex");
    let pointer = regex::Regex::new(
        r#"docs/([A-Z][A-Z_]+\.md)(?:#([a-z0-9_-]+)|, \\?"([^"\\]+)\\?"|, ([A-Z][a-z]+(?: [a-z]+)*)\))?"#,
    )
    .expect("a regex");
    let mut checked = 0;
    let mut sections = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file reads");
        let text = joins.replace_all(&text, " ");
        for found in pointer.captures_iter(&text) {
            checked += 1;
            let name = &found[1];
            let shown = format!(
                "{}: {}",
                file.strip_prefix(root).unwrap_or(file).display(),
                &found[0]
            );
            let Ok(doc) = std::fs::read_to_string(root.join("docs").join(name)) else {
                wrong.push(format!("{shown}: no such file"));
                continue;
            };
            let heads = headings(&doc);
            let named = found
                .get(3)
                .or_else(|| found.get(4))
                .map(|m| m.as_str().to_owned());
            if let Some(anchor) = found.get(2) {
                sections += 1;
                if !heads.iter().any(|(_, a)| a == anchor.as_str()) {
                    wrong.push(format!("{shown}: no heading with that anchor"));
                }
            } else if let Some(section) = named {
                sections += 1;
                // A heading (`## Stale knowledge`, `## Instruction-shaped text (...)`), or a
                // paragraph's bold lead (`**Conflicts.** ...`).
                let plain = |t: &str| t.replace('`', "");
                let heading = heads.iter().any(|(t, _)| {
                    let t = plain(t);
                    t == section
                        || t.starts_with(&format!("{section}:"))
                        || t.starts_with(&format!("{section} ("))
                });
                let lead = doc.lines().any(|l| {
                    l.starts_with(&format!("**{section}.**"))
                        || l.starts_with(&format!("**{section}**"))
                });
                if !heading && !lead {
                    wrong.push(format!("{shown}: no section \"{section}\" in docs/{name}"));
                }
            }
        }
    }
    assert!(
        checked > 100 && sections > 10,
        "{checked} pointers, {sections} to sections"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A candidate whose `file:` reference no longer resolves is a warning whose fix offers a
/// rejection; once rejected, it claims nothing, and doctor says nothing about it (a fix
/// that was followed never leaves the finding standing).
#[test]
fn a_rejected_candidates_references_are_no_finding() {
    let repo = TestRepo::initialised();
    repo.commit("src/gone.rs", "fn gone() {}\n", "Add gone");
    repo.start_episode();
    repo.run(&[
        "decision",
        "The gone module stays small",
        "--file",
        "src/gone.rs",
    ])
    .success();
    repo.run(&["session", "close"]).success();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "majordomus: episode"]);
    repo.git(&["rm", "-q", "src/gone.rs"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Remove gone"]);
    let id = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .pop()
        .expect("a candidate");
    let report = repo.run(&["--format", "json", "doctor"]).json();
    let about: Vec<Value> = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["file"].as_str().is_some_and(|p| p.contains(&id)))
        .collect();
    // A candidate claims nothing yet: the dead reference is advisory (SPEC §5.2), and its
    // fix is the rejection, run below exactly as printed.
    assert_eq!(about.len(), 1, "{report:#}");
    assert_eq!(about[0]["severity"], "advisory", "{about:?}");
    let fix = about[0]["fix"].as_str().expect("a fix").to_owned();
    assert!(
        fix.starts_with(&format!("majordomus knowledge reject {id} --reason ")),
        "{fix}"
    );
    repo.run_printed(&fix);
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    let about: Vec<Value> = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["file"].as_str().is_some_and(|p| p.contains(&id)))
        .collect();
    assert!(about.is_empty(), "{about:?}");
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    assert_eq!(check["findings"], json!([]), "{check}");
}

/// Doctor prints each distinct fix once: three provider hook failures share
/// `hooks acknowledge --through N`, which is said once under them.
#[test]
fn doctor_says_each_distinct_fix_once() {
    let repo = TestRepo::initialised();
    for _ in 0..3 {
        repo.run_with_stdin(&["hook", "compact", "--provider", "some-client"], "{nope")
            .success();
    }
    let seq = repo
        .ledger_events("provider.event.failed")
        .last()
        .expect("a failure")["seq"]
        .clone();
    let run = repo.run(&["doctor"]).success();
    let fix = format!("       fix: majordomus hooks acknowledge --through {seq}\n");
    assert_eq!(run.stdout().matches(&fix).count(), 1, "{run}");
    let block: Vec<&str> = run
        .stdout()
        .lines()
        .skip_while(|l| *l != "WARN majordomus.provider-events")
        .skip(1)
        .take(4)
        .collect();
    assert!(
        block[..3]
            .iter()
            .all(|l| l
                .starts_with("     WARN .ai/local/ledger.jsonl [majordomus.provider-events] #")),
        "{run}"
    );
    assert_eq!(format!("{}\n", block[3]), fix, "{run}");
    // The JSON keeps each finding's fix.
    let json = repo.run(&["--format", "json", "doctor"]).success().json();
    let events = json["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.provider-events")
        .expect("the rule")
        .clone();
    assert_eq!(
        events["findings"].as_array().map(Vec::len),
        Some(3),
        "{events}"
    );
    // And the fix works as printed.
    repo.run_printed(fix.trim().trim_start_matches("fix: "));
    let after = repo.run(&["doctor"]).success();
    assert!(
        after.stdout().contains("ok   majordomus.provider-events"),
        "{after}"
    );
}
