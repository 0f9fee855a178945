//! `majordomus env`: versions, repository, HEAD, trunk, open episode and ledger.

use crate::common::TestRepo;

#[test]
fn env_human_output() {
    let repo = TestRepo::initialised();
    // A catalogue of this repository's own, so what is installed on this machine does not
    // change the advisors line.
    repo.write(
        ".ai/repo/advisors.yaml",
        "advisors:\n  - id: reviewer\n    title: Reviewer\n    adapter: fixture\n    capabilities: [independent_reasoning]\n",
    );
    repo.start_episode();
    let run = repo.run(&["env"]).success();
    assert!(
        run.stdout()
            .contains("advisors: mode standard (policy); reviewer available\n"),
        "{run}"
    );
    assert!(
        run.stdout()
            .starts_with(&format!("majordomus {} (", env!("CARGO_PKG_VERSION"))),
        "{run}"
    );
    assert!(
        run.stdout()
            .contains(&format!("root: {}\n", repo.root().display())),
        "{run}"
    );
    assert!(
        run.stdout().contains(&format!("HEAD: {}\n", repo.head())),
        "{run}"
    );
    assert!(
        run.stdout().contains(&format!(
            "episode: {} (opened 2026-11-30T10:00:00Z)\n",
            repo.episode_id()
        )),
        "{run}"
    );
    insta::assert_snapshot!("env_with_episode", repo.redact(run.stdout()));
}

#[test]
fn env_json_has_versions_head_trunk_episode_and_ledger() {
    let repo = TestRepo::initialised();
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(json["versions"]["majordomus"], env!("CARGO_PKG_VERSION"));
    assert_eq!(json["versions"]["session_schema"], "session/v1");
    assert!(json["versions"]["gix"].is_string());
    assert!(json["versions"]["ledger_format"].is_string());
    assert_eq!(json["root"], repo.root().display().to_string());
    assert_eq!(json["initialised"], true);
    assert_eq!(json["head"]["id"], repo.head());
    assert_eq!(json["head"]["branch"], "main");
    assert_eq!(json["head"]["detached"], false);
    assert_eq!(json["head"]["unborn"], false);
    assert!(json["trunk"].is_null(), "no remote, no trunk: {json}");
    assert_eq!(json["on_trunk"], false);
    assert!(json["episode"].is_null());
    assert_eq!(json["ledger"]["path"], ".ai/local/ledger.jsonl");
    assert_eq!(json["ledger"]["bytes"], 0);
    assert_eq!(json["clock_pinned"], true);

    let id = repo.start_episode();
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(json["episode"]["id"], id.as_str());
    let bytes = std::fs::metadata(repo.path(".ai/local/ledger.jsonl"))
        .expect("ledger")
        .len();
    assert_eq!(json["ledger"]["bytes"], bytes);
}

#[test]
fn env_without_a_remote_has_no_trunk() {
    let repo = TestRepo::initialised();
    let run = repo.run(&["env"]).success();
    assert!(
        run.stdout().contains("trunk: none (no remote HEAD; "),
        "{run}"
    );
}

#[test]
fn env_trunk_from_the_remote_head_of_a_clone() {
    let repo = TestRepo::initialised();
    let base = repo.base();
    repo.git_in(base, &["clone", "-q", "--bare", "repo", "origin.git"]);
    repo.git_in(base, &["clone", "-q", "origin.git", "clone"]);
    let clone = base.join("clone");
    assert_eq!(
        repo.git_in(&clone, &["symbolic-ref", "refs/remotes/origin/HEAD"]),
        "refs/remotes/origin/main"
    );

    let json = repo
        .run_in(&clone, &["--format", "json", "env"])
        .success()
        .json();
    assert_eq!(
        json["trunk"],
        serde_json::json!({ "branch": "main", "source": "remote-head", "remote": "origin" })
    );
    assert_eq!(json["on_trunk"], true);
    let run = repo.run_in(&clone, &["env"]).success();
    assert!(
        run.stdout()
            .contains("trunk: main (from refs/remotes/origin/HEAD), checked out\n"),
        "{run}"
    );

    // A configured trunk wins over the remote HEAD.
    repo.git_in(&clone, &["config", "majordomus.trunk", "release"]);
    let json = repo
        .run_in(&clone, &["--format", "json", "env"])
        .success()
        .json();
    assert_eq!(
        json["trunk"],
        serde_json::json!({ "branch": "release", "source": "config", "remote": null })
    );
    assert_eq!(json["on_trunk"], false);
    let run = repo.run_in(&clone, &["env"]).success();
    assert!(
        run.stdout()
            .contains("trunk: release (from git config majordomus.trunk)\n"),
        "{run}"
    );
}

#[test]
fn env_trunk_appears_once_the_remote_head_is_set() {
    let repo = TestRepo::initialised();
    repo.git_in(
        repo.base(),
        &["clone", "-q", "--bare", "repo", "origin.git"],
    );
    let origin = repo.base().join("origin.git").display().to_string();
    repo.git(&["remote", "add", "origin", &origin]);
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert!(json["trunk"].is_null(), "nothing is guessed: {json}");

    repo.git(&["fetch", "-q", "origin"]);
    repo.git(&["remote", "set-head", "origin", "-a"]);
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(json["trunk"]["branch"], "main");
    assert_eq!(json["trunk"]["source"], "remote-head");
}

#[test]
fn env_works_before_init_and_before_the_first_commit() {
    let repo = TestRepo::unborn();
    let run = repo.run(&["env"]).success();
    assert!(
        run.stdout()
            .contains("initialised: no (run `majordomus init`)\n"),
        "{run}"
    );
    assert!(
        run.stdout().contains("HEAD: (unborn: no commit yet)\n"),
        "{run}"
    );
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(json["initialised"], false);
    assert_eq!(json["head"]["unborn"], true);
    assert!(json["head"]["id"].is_null());
    assert_eq!(json["head"]["branch"], "main");
}

#[test]
fn env_shows_a_detached_head() {
    let repo = TestRepo::initialised();
    repo.git(&["checkout", "-q", "--detach"]);
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(json["head"]["detached"], true);
    assert!(json["head"]["branch"].is_null());
    let run = repo.run(&["env"]).success();
    assert!(run.stdout().contains("branch: (detached HEAD)\n"), "{run}");
}

#[test]
fn a_malformed_clock_is_a_usage_error() {
    let mut repo = TestRepo::initialised();
    repo.now("yesterday");
    let run = repo.run(&["env"]);
    run.assert_human_error(2, "MAJORDOMUS_NOW=yesterday");
    repo.run(&["--format", "json", "env"])
        .json_error(2, "usage");
}

/// `env --format json` carries the reasoning state structured, beside its one line: the
/// mode and its source, each advisor's status, and the capacity per capability.
#[test]
fn env_json_carries_a_structured_reasoning_object() {
    let repo = TestRepo::initialised();
    repo.write(
        ".ai/repo/advisors.yaml",
        "advisors:\n  - id: reviewer\n    title: Reviewer\n    adapter: fixture\n    capabilities: [independent_reasoning]\n  - id: absent\n    title: Absent\n    adapter: process\n    executable: majordomus-no-such-advisor\n    capabilities: [independent_reasoning, code_review]\n",
    );
    let json = repo.run(&["--format", "json", "env"]).success().json();
    assert_eq!(
        json["advisors"],
        "mode standard (policy); reviewer available, absent unavailable"
    );
    let reasoning = &json["reasoning"];
    assert_eq!(
        reasoning["mode"],
        serde_json::json!({"mode": "standard", "source": "policy"}),
        "{reasoning}"
    );
    assert_eq!(reasoning["catalogue"], ".ai/repo/advisors.yaml");
    assert_eq!(reasoning["advisors"][0]["advisor"], "reviewer");
    assert_eq!(reasoning["advisors"][0]["status"], "available");
    assert_eq!(reasoning["advisors"][1]["advisor"], "absent");
    assert_eq!(reasoning["advisors"][1]["status"], "unavailable");
    assert!(
        reasoning["advisors"][1]["reason"].is_string(),
        "{reasoning}"
    );
    assert_eq!(
        reasoning["capacity"],
        serde_json::json!([
            {"capability": "code_review", "offered_by": 1, "admissible": 0},
            {"capability": "independent_reasoning", "offered_by": 2, "admissible": 1},
        ]),
        "{reasoning}"
    );
    // Not initialised: neither the line nor the object.
    let bare = TestRepo::new();
    let json = bare.run(&["--format", "json", "env"]).success().json();
    assert!(
        json["advisors"].is_null() && json["reasoning"].is_null(),
        "{json}"
    );
}
