//! Batch review (SPEC §5.2, issue 27 items 1–3): `knowledge promote|reject` by many ids or
//! by the listed selection, one act each in the ledger, all checked before any write;
//! `--commit` writes one commit of exactly the reviewed paths; near duplicates fold into
//! one review item; `reject --duplicate-of`.

use std::collections::BTreeSet;

use crate::common::{TestRepo, split_record};

const CANDIDATES: &str = ".ai/repo/knowledge/candidates";
const CURATED: &str = ".ai/repo/knowledge/curated";
const EPISODE_A: &str = "20261130T101500Z-1a2b3c";
const EPISODE_B: &str = "20261201T101500Z-4d5e6f";

fn id(episode: &str, n: usize) -> String {
    format!("{episode}-{n:012x}")
}

fn path(dir: &str, id: &str) -> String {
    format!("{dir}/{id}.md")
}

/// Writes a candidate record by hand: `claim` is its body.
fn candidate(repo: &TestRepo, id: &str, class: &str, date: &str, claim: &str) {
    repo.write(
        &path(CANDIDATES, id),
        &format!(
            "---\nid: {id}\nschema: knowledge/v1\nclass: {class}\nstatus: candidate\nstance: observed\ntitle: {claim}\ndate: {date}\nprovenance:\n  origin: extracted\n  derived_from:\n  - file:README.md\n---\n{claim}\n"
        ),
    );
}

/// A claim no other claim of `n` resembles: every term is its own.
fn distinct_claim(n: usize) -> String {
    format!("Unit u{n}x keeps k{n}y inside v{n}z")
}

/// `n` candidates of two episodes and two classes, committed.
fn committed_queue(repo: &TestRepo, n: usize) -> Vec<String> {
    let ids: Vec<String> = (0..n)
        .map(|i| {
            let (episode, class) = if i % 2 == 0 {
                (EPISODE_A, "fact")
            } else {
                (EPISODE_B, "lesson")
            };
            let id = id(episode, i + 1);
            candidate(repo, &id, class, "2026-11-30", &distinct_claim(i));
            id
        })
        .collect();
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "candidates"]);
    ids
}

/// The files of the work tree but what majordomus keeps for itself (`.ai/local/`: its
/// lock, its ledger index), with their times.
fn kept_files(repo: &TestRepo) -> Vec<(String, (Vec<u8>, std::time::SystemTime))> {
    repo.files()
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".ai/local/"))
        .collect()
}

fn head_paths(repo: &TestRepo) -> BTreeSet<String> {
    repo.git(&["show", "--no-renames", "--name-only", "--format=", "HEAD"])
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn two_hundred_candidates_are_reviewed_by_selection_in_one_act_and_one_commit() {
    let repo = TestRepo::initialised();
    let ids = committed_queue(&repo, 200);
    // Another staged change and an unstaged one, neither the review's.
    repo.write("README.md", "# staged\n");
    repo.git(&["add", "README.md"]);
    repo.write("notes.txt", "untracked\n");
    let before = repo.head();

    // What 200 promotions cost is measured by the guarantees bench (`review`), not here.
    let run = repo
        .run_with_stdin(
            &[
                "--format",
                "json",
                "knowledge",
                "promote",
                "--all-listed",
                "--commit",
            ],
            "tests/cli/review.rs checks every one of them",
        )
        .success();
    let json = run.json();
    assert_eq!(
        json["promoted"].as_array().map(Vec::len),
        Some(200),
        "{run}"
    );
    assert_eq!(json["rejected"].as_array().map(Vec::len), Some(0));
    assert_eq!(repo.ledger_events("knowledge.promoted").len(), 200);

    // One commit on the branch, its parent the old HEAD, holding exactly the 400 paths:
    // each candidate removed, each curated record added.
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(json["commit"]["id"], repo.head().as_str());
    assert_eq!(json["commit"]["branch"], "main");
    let expected: BTreeSet<String> = ids
        .iter()
        .flat_map(|id| [path(CANDIDATES, id), path(CURATED, id)])
        .collect();
    assert_eq!(head_paths(&repo), expected);
    let message = repo.git(&["log", "-1", "--format=%B"]);
    let mut lines = message.lines();
    assert_eq!(lines.next(), Some("majordomus: review — promote 200"));
    assert_eq!(lines.next(), Some(""));
    let acts: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    assert_eq!(acts.len(), 200, "{message}");
    assert!(acts.iter().all(|l| l.starts_with("promote ")), "{message}");

    // The index matches the commit for those paths; what else was staged stays staged,
    // and the untracked file is untouched.
    assert_eq!(repo.git(&["status", "--porcelain", "--", ".ai"]), "");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "M  README.md\n?? notes.txt"
    );
    // Each record has its own evidence.
    let (_, front, body) = split_record(&repo.read(&path(CURATED, &ids[7])));
    assert_eq!(front["status"], "verified");
    assert!(
        body.ends_with("# Evidence\n\ntests/cli/review.rs checks every one of them\n"),
        "{body}"
    );
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn the_selection_is_what_candidates_lists_with_the_same_filters() {
    let mut repo = TestRepo::initialised();
    let ids = committed_queue(&repo, 6);
    let listed = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "candidates",
            "--episode",
            EPISODE_B,
            "--class",
            "lesson",
        ])
        .success()
        .json();
    let listed: Vec<String> = listed["candidates"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect();
    assert_eq!(listed.len(), 3);
    assert!(listed.iter().all(|l| l.starts_with(EPISODE_B)));

    let run = repo
        .run(&[
            "knowledge",
            "reject",
            "--all-listed",
            "--episode",
            EPISODE_B,
            "--class",
            "lesson",
            "--reason",
            "Only true for the old parser",
        ])
        .success();
    assert!(
        run.stdout()
            .starts_with("reviewed 3 candidate(s): 0 promoted, 3 rejected\n"),
        "{run}"
    );
    // One `next:` line for the whole review, which works as printed.
    let next: Vec<&str> = run
        .stdout()
        .lines()
        .filter(|l| l.starts_with("next: "))
        .collect();
    assert_eq!(next.len(), 1, "{run}");
    let command = next[0].trim_start_matches("next: ");
    let out = repo.sh_in(repo.root(), command);
    assert!(out.status.success(), "{command}: {out:?}");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let rejected = repo.ledger_events("knowledge.rejected");
    assert_eq!(rejected.len(), 3);
    for (event, id) in rejected.iter().zip(&listed) {
        assert_eq!(event["data"]["id"], id.as_str());
        let (_, front, body) = split_record(&repo.read(&path(CANDIDATES, id)));
        assert_eq!(front["status"], "superseded");
        assert!(body.ends_with("# Rejected\n\nOnly true for the old parser\n"));
    }
    // The rest still wait.
    let left = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    assert_eq!(left["candidates"].as_array().map(Vec::len), Some(3));
    let _ = ids;

    // --older-than measures from the queue start (here the commit that added them) to now.
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        "--all-listed",
        "--older-than",
        "1m",
        "--reason",
        "old",
    ])
    .json_error(3, "knowledge.selection-empty");
    repo.now("2026-12-08T10:00:00Z");
    let old = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "candidates",
            "--older-than",
            "7d",
        ])
        .success()
        .json();
    assert_eq!(old["candidates"].as_array().map(Vec::len), Some(3));
    let none = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "candidates",
            "--older-than",
            "2w",
        ])
        .success()
        .json();
    assert_eq!(none["candidates"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_review_that_cannot_be_done_whole_writes_nothing() {
    let repo = TestRepo::initialised();
    let ids = committed_queue(&repo, 4);
    let ledger = repo.ledger_text_if_any();
    let files = kept_files(&repo);
    let unchanged = |why: &str| {
        assert_eq!(kept_files(&repo), files, "{why}: a file changed");
        assert_eq!(
            repo.ledger_text_if_any(),
            ledger,
            "{why}: the ledger changed"
        );
    };

    // One unknown id among good ones: nothing is rejected.
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &ids[0],
        &id(EPISODE_A, 0xfff),
        "--reason",
        "no",
    ])
    .json_error(3, "knowledge.known-id");
    unchanged("an unknown id");

    // An empty selection.
    repo.run_with_stdin(
        &[
            "--format",
            "json",
            "knowledge",
            "promote",
            "--all-listed",
            "--episode",
            "20200101T000000Z-abcdef",
        ],
        "evidence",
    )
    .json_error(3, "knowledge.selection-empty");
    unchanged("an empty selection");

    // Ids and a selection together; filters without --all-listed; a span that is none.
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &ids[0],
        "--all-listed",
        "--reason",
        "no",
    ])
    .json_error(3, "knowledge.selection-mixed");
    let required = repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        "--episode",
        EPISODE_A,
        "--reason",
        "no",
    ]);
    let error = required.json_error(3, "knowledge.selection-required");
    assert_eq!(
        error["fix"],
        format!("majordomus knowledge candidates --episode {EPISODE_A}")
    );
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "candidates",
        "--older-than",
        "a week",
    ])
    .json_error(2, "knowledge.older-than");
    unchanged("bad requests");

    // A staged change of its own to a reviewed path: the commit would carry it.
    let staged = path(CANDIDATES, &ids[1]);
    let text = repo.read(&staged);
    repo.write(&staged, &format!("{text}Staged by hand.\n"));
    repo.git(&["add", &staged]);
    repo.write(
        &staged,
        &format!("{text}Staged by hand, then edited again.\n"),
    );
    let files = kept_files(&repo);
    let run = repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &ids[0],
        &ids[1],
        "--reason",
        "no",
        "--commit",
    ]);
    let error = run.json_error(3, "knowledge.commit-staged");
    assert_eq!(error["fix"], format!("git restore --staged -- {staged}"));
    assert_eq!(kept_files(&repo), files, "a staged change: a file changed");
    assert_eq!(repo.ledger_text_if_any(), ledger);
    repo.git(&["restore", "--staged", "--", &staged]);
    repo.git(&["checkout", "--", &staged]);

    // A detached HEAD: a review commit goes on a branch.
    repo.git(&["checkout", "-q", "--detach"]);
    let human = repo.run(&[
        "knowledge",
        "reject",
        &ids[0],
        &ids[1],
        "--reason",
        "no",
        "--commit",
    ]);
    human.assert_human_error(3, "HEAD is detached");
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &ids[0],
        &ids[1],
        "--reason",
        "no",
        "--commit",
    ])
    .json_error(3, "knowledge.commit-branch");
    assert_eq!(repo.ledger_text_if_any(), ledger);
    assert!(
        repo.read(&path(CANDIDATES, &ids[0]))
            .contains("status: candidate")
    );
}

#[test]
fn near_duplicates_are_one_review_item_decided_by_one_act() {
    let repo = TestRepo::initialised();
    let older = id(EPISODE_A, 1);
    let newer = id(EPISODE_B, 2);
    let other = id(EPISODE_B, 3);
    candidate(
        &repo,
        &older,
        "convention",
        "2026-11-30",
        "Parse the YAML policy with yaml_serde",
    );
    candidate(
        &repo,
        &newer,
        "convention",
        "2026-12-01",
        "The YAML policy is parsed with yaml_serde.",
    );
    candidate(
        &repo,
        &other,
        "fact",
        "2026-12-01",
        "Ledger appends take the exclusive lock",
    );

    let listed = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    assert_eq!(listed["items"], 2, "{listed}");
    let entries = listed["candidates"].as_array().expect("a list");
    let head = entries
        .iter()
        .find(|c| c["id"] == newer.as_str())
        .expect("the newer");
    assert_eq!(head["folded"], serde_json::json!([older]));
    let folded = entries
        .iter()
        .find(|c| c["id"] == older.as_str())
        .expect("the older");
    assert_eq!(folded["folded_under"], newer.as_str());
    let text = repo.run(&["knowledge", "candidates"]).success();
    assert!(
        text.stdout().starts_with(
            "3 candidate(s) awaiting review as 2 review item(s): near duplicates fold under the newest\n"
        ),
        "{text}"
    );
    insta::assert_snapshot!("review_candidates_folded", repo.redact(text.stdout()));
    assert!(text.stdout().contains("[+1 folded]"), "{text}");
    assert!(
        text.stdout().contains(&format!(
            "    folded: {older}: Parse the YAML policy with yaml_serde\n"
        )),
        "{text}"
    );

    // Promoting the item promotes the newest and rejects the other as its duplicate, in
    // one commit.
    let run = repo
        .run_with_stdin(
            &[
                "--format",
                "json",
                "knowledge",
                "promote",
                &newer,
                "--commit",
            ],
            "src/model/policy.rs parses it with yaml_serde",
        )
        .success();
    let json = run.json();
    assert_eq!(json["promoted"][0]["id"], newer.as_str());
    assert_eq!(json["rejected"][0]["id"], older.as_str());
    assert_eq!(json["rejected"][0]["duplicate_of"], newer.as_str());
    let (_, front, body) = split_record(&repo.read(&path(CANDIDATES, &older)));
    assert_eq!(front["status"], "superseded");
    assert_eq!(front["superseded_by"], newer.as_str());
    assert!(
        body.ends_with(&format!(
            "# Rejected\n\nA near duplicate of {newer}, which supersedes it.\n"
        )),
        "{body}"
    );
    assert_eq!(
        head_paths(&repo),
        BTreeSet::from([path(CANDIDATES, &older), path(CURATED, &newer),])
    );
    // The third candidate was untracked and stays so; the reviewed two are clean.
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".ai/repo/knowledge"]),
        format!("?? {}", path(CANDIDATES, &other))
    );
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("majordomus: review — promote 1, reject 1\n\n"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "reject {older} Parse the YAML policy with yaml_serde (duplicate of {newer})"
        )),
        "{message}"
    );

    // A new candidate restating the verified record says so.
    let again = id(EPISODE_B, 4);
    candidate(
        &repo,
        &again,
        "convention",
        "2026-12-02",
        "parse the YAML policy with yaml_serde",
    );
    let listed = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let restating = listed["candidates"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["id"] == again.as_str())
        .expect("listed");
    assert_eq!(restating["restates"], newer.as_str());
    repo.run(&["knowledge", "check"]).success();
}

/// `promote <id>` and `reject <id>` with a single id (no selection, no commit) decide the
/// whole review item, as the selection forms do: one item, one act.
#[test]
fn a_single_id_decides_its_whole_review_item() {
    let repo = TestRepo::initialised();
    let older = id(EPISODE_A, 1);
    let newer = id(EPISODE_B, 2);
    let other = id(EPISODE_B, 3);
    let again_old = id(EPISODE_A, 4);
    let again_new = id(EPISODE_B, 5);
    let folded = |repo: &TestRepo| {
        candidate(
            repo,
            &older,
            "convention",
            "2026-11-30",
            "Parse the YAML policy with yaml_serde",
        );
        candidate(
            repo,
            &newer,
            "convention",
            "2026-12-01",
            "The YAML policy is parsed with yaml_serde.",
        );
        candidate(
            repo,
            &other,
            "fact",
            "2026-12-01",
            "Ledger appends take the exclusive lock",
        );
    };
    folded(&repo);
    // The older one named: it is promoted, the newer rejected as its duplicate.
    let run = repo
        .run_with_stdin(
            &["knowledge", "promote", &older],
            "src/model/policy.rs parses it with yaml_serde",
        )
        .success();
    assert!(
        run.stdout().starts_with(&format!(
            "promoted {older} -> {} (verified)\nrejected {newer} (folded with it: a near duplicate, superseded by {older})\n",
            path(CURATED, &older)
        )),
        "{run}"
    );
    let (_, front, body) = split_record(&repo.read(&path(CANDIDATES, &newer)));
    assert_eq!(front["status"], "superseded");
    assert_eq!(front["superseded_by"], older.as_str());
    assert!(
        body.ends_with(&format!(
            "# Rejected\n\nA near duplicate of {older}, which supersedes it.\n"
        )),
        "{body}"
    );
    let rejected = repo.ledger_events("knowledge.rejected");
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["data"]["id"], newer.as_str());
    // The other item is untouched.
    let (_, front, _) = split_record(&repo.read(&path(CANDIDATES, &other)));
    assert_eq!(front["status"], "candidate");

    // `reject <id>` rejects every member, for the same reason; JSON names them.
    candidate(
        &repo,
        &again_old,
        "convention",
        "2026-11-30",
        "Tokenize the source with the logos crate",
    );
    candidate(
        &repo,
        &again_new,
        "convention",
        "2026-12-01",
        "Always tokenize the source with the logos crate.",
    );
    let json = repo
        .run(&[
            "--format",
            "json",
            "knowledge",
            "reject",
            &again_new,
            "--reason",
            "The lexer allocates now",
        ])
        .success()
        .json();
    assert_eq!(json["id"], again_new.as_str());
    assert_eq!(json["folded"], serde_json::json!([again_old]), "{json}");
    for id in [&again_old, &again_new] {
        let (_, front, body) = split_record(&repo.read(&path(CANDIDATES, id)));
        assert_eq!(front["status"], "superseded", "{id}");
        assert!(
            body.ends_with("# Rejected\n\nThe lexer allocates now\n"),
            "{body}"
        );
    }
    assert_eq!(repo.ledger_events("knowledge.rejected").len(), 3);
    repo.run(&["knowledge", "check"]).success();
}

/// SPEC §5.2: the queue is oldest first; what entered it in the same second lists in the
/// order it was derived (the ledger's), never by the random part of the ids.
#[test]
fn candidates_derived_in_the_same_second_list_in_derivation_order() {
    let repo = TestRepo::initialised();
    // Ten episodes in one second, each deciding one thing, in an order neither their ids
    // nor their titles follow.
    let titles: Vec<String> = (0..10)
        .map(|i| {
            format!(
                "{} rule of the parser number {i}",
                [
                    "Zeta", "Alpha", "Mu", "Beta", "Omega", "Delta", "Kappa", "Gamma", "Sigma",
                    "Eta"
                ][i]
            )
        })
        .collect();
    for title in &titles {
        repo.start_episode();
        repo.run(&["decision", title]).success();
        repo.run(&["session", "close"]).success();
    }
    // And one episode deciding three things: they list as they were decided.
    repo.start_episode();
    for title in [
        "Yankee is decided first",
        "Bravo is decided second",
        "Xray is decided third",
    ] {
        repo.run(&["decision", title]).success();
    }
    repo.run(&["session", "close"]).success();
    let listed = repo
        .run(&["--format", "json", "knowledge", "candidates"])
        .success()
        .json();
    let order: Vec<&str> = listed["candidates"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["title"].as_str().expect("a title"))
        .collect();
    let mut expected: Vec<&str> = titles.iter().map(String::as_str).collect();
    expected.extend([
        "Yankee is decided first",
        "Bravo is decided second",
        "Xray is decided third",
    ]);
    assert_eq!(order, expected);
    // The review item's "newest" is the last derived.
    let status = repo
        .run(&["--format", "json", "knowledge", "status"])
        .success()
        .json();
    assert!(
        listed["candidates"][0]["id"] == status["oldest"],
        "{status}"
    );
}

#[test]
fn reject_duplicate_of_supersedes_by_the_other_record() {
    let repo = TestRepo::initialised();
    let a = id(EPISODE_A, 1);
    let b = id(EPISODE_A, 2);
    candidate(
        &repo,
        &a,
        "fact",
        "2026-11-30",
        "The cockpit listens on loopback only",
    );
    candidate(
        &repo,
        &b,
        "fact",
        "2026-11-30",
        "Recall ranks records by BM25",
    );

    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &a,
        "--duplicate-of",
        &id(EPISODE_A, 0xfff),
    ])
    .json_error(3, "knowledge.replacement");
    repo.run(&[
        "--format",
        "json",
        "knowledge",
        "reject",
        &a,
        "--duplicate-of",
        &a,
    ])
    .json_error(3, "knowledge.replacement");
    assert!(repo.ledger_events_if_any("knowledge.rejected").is_empty());

    // A pre-commit hook that refuses every commit: the review's commit is gix's, and git
    // runs no hook for it (docs/KNOWLEDGE.md).
    repo.git(&["add", ".ai"]);
    repo.git(&["commit", "-q", "-m", "two candidates"]);
    let hook = repo.path(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\necho refused >&2\nexit 1\n").expect("write the hook");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
            .expect("make the hook executable");
    }
    let before = repo.head();
    let run = repo
        .run(&["knowledge", "reject", &a, "--duplicate-of", &b, "--commit"])
        .success();
    insta::assert_snapshot!("review_reject_duplicate_of", repo.redact(run.stdout()));
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(head_paths(&repo), BTreeSet::from([path(CANDIDATES, &a)]));
    assert!(
        run.stdout().contains(&format!(
            "  reject {a} The cockpit listens on loopback only (duplicate of {b})\n"
        )),
        "{run}"
    );
    let (_, front, body) = split_record(&repo.read(&path(CANDIDATES, &a)));
    assert_eq!(front["status"], "superseded");
    assert_eq!(front["superseded_by"], b.as_str());
    assert!(
        body.ends_with(&format!(
            "# Rejected\n\nA near duplicate of {b}, which supersedes it.\n"
        )),
        "{body}"
    );
    let rejected = repo.ledger_events("knowledge.rejected");
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["data"]["superseded_by"], b.as_str());
    // The other record is untouched, and the store holds together.
    assert!(
        repo.read(&path(CANDIDATES, &b))
            .contains("status: candidate")
    );
    repo.run(&["knowledge", "check"]).success();
}

#[test]
fn the_http_route_takes_the_same_selection_and_refuses_the_same_way() {
    let repo = TestRepo::initialised();
    let ids = committed_queue(&repo, 4);
    let served = crate::http::Served::start(&repo);
    // A field of the other act: schema-valid, refused (409) by the rule.
    let answer = served.post(
        "/api/v1/knowledge/review",
        &serde_json::json!({"act": "promote", "ids": [ids[0]], "evidence": "x", "reason": "no"}),
    );
    assert_eq!(answer.status(), 409, "{}", answer.json());
    assert_eq!(answer.json()["error"]["rule"], "knowledge.review-field");
    let answer = served.post(
        "/api/v1/knowledge/review",
        &serde_json::json!({"act": "reject", "ids": [ids[0]], "by": ids[1], "duplicate_of": ids[2]}),
    );
    assert_eq!(answer.status(), 409, "{}", answer.json());
    assert_eq!(answer.json()["error"]["rule"], "knowledge.review-field");
    // Nothing selected.
    let answer = served.post(
        "/api/v1/knowledge/review",
        &serde_json::json!({"act": "reject", "reason": "no", "filters": {"class": "fact"}}),
    );
    assert_eq!(answer.status(), 409, "{}", answer.json());
    assert_eq!(
        answer.json()["error"]["rule"],
        "knowledge.selection-required"
    );
    // The selection the cockpit's "whole filtered queue" sends, in one commit.
    let answer = served.post(
        "/api/v1/knowledge/review",
        &serde_json::json!({
            "act": "promote",
            "all_listed": true,
            "filters": {"episode": EPISODE_A, "class": "fact"},
            "evidence": "tests/cli/review.rs drives it over HTTP",
            "commit": true,
        }),
    );
    assert_eq!(answer.status(), 200, "{}", answer.json());
    let json = answer.json();
    let promoted: Vec<&str> = json["promoted"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(promoted, [ids[0].as_str(), ids[2].as_str()]);
    assert_eq!(json["commit"]["id"], repo.head().as_str());
    assert_eq!(repo.ledger_events("knowledge.promoted").len(), 2);
}

#[test]
fn a_review_commit_needs_a_committer() {
    let repo = TestRepo::initialised();
    let ids = committed_queue(&repo, 2);
    let mut command = repo.command_in(
        repo.root(),
        &[
            "--format",
            "json",
            "knowledge",
            "reject",
            &ids[0],
            &ids[1],
            "--reason",
            "no",
            "--commit",
        ],
    );
    for key in [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
    ] {
        command.env_remove(key);
    }
    let output = command.output().expect("run majordomus");
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["error"]["rule"], "knowledge.commit-identity", "{json}");
    assert!(repo.ledger_events_if_any("knowledge.rejected").is_empty());
}
