//! Hooks (SPEC §8): `hooks install|uninstall` (chaining what was there), the git hooks run
//! by a real git, stepping aside, and the provider hooks that never block their provider.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{TestRepo, bin, changed_files};

const HOOKS: [&str; 4] = ["post-commit", "pre-push", "post-checkout", "post-merge"];

/// A Claude Code `SessionStart` payload.
const START_PAYLOAD: &str = r#"{"session_id":"abc","transcript_path":"/tmp/abc.jsonl","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup"}"#;
/// A Claude Code `SessionEnd` payload.
const END_PAYLOAD: &str = r#"{"session_id":"abc","transcript_path":"/tmp/abc.jsonl","cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}"#;

/// The script shipped in `hooks/<name>`.
fn shipped(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("hooks")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 == 0o111)
}

/// Writes an executable `sh` script.
fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}")).expect("write the script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .expect("make the script executable");
}

/// Runs `git ARGS` at the root with the hooks able to find the majordomus under test.
fn git_with_hooks(repo: &TestRepo, args: &[&str]) -> Output {
    repo.git_command_in(repo.root(), args)
        .env("MAJORDOMUS_BIN", bin())
        .env("GIT_EDITOR", "true")
        .output()
        .expect("spawn git")
}

#[track_caller]
fn assert_git_ok(output: &Output) {
    assert!(
        output.status.success(),
        "git failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The actions of a `hooks install|uninstall --format json` report, by hook.
fn actions(report: &Value) -> Vec<(String, String)> {
    report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            (
                h["hook"].as_str().expect("hook").to_owned(),
                h["action"].as_str().expect("action").to_owned(),
            )
        })
        .collect()
}

fn all(action: &str) -> Vec<(String, String)> {
    HOOKS
        .iter()
        .map(|h| ((*h).to_owned(), action.to_owned()))
        .collect()
}

// --- install and uninstall -------------------------------------------------------------

#[test]
fn install_writes_the_four_scripts_and_is_idempotent() {
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    let run = repo.run(&["hooks", "install"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "hooks directory: {}\n  post-commit    installed\n  pre-push       installed\n  post-checkout  installed\n  post-merge     installed\n",
            dir.display()
        )
    );
    for name in HOOKS {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).expect("installed hook");
        assert_eq!(text, shipped(name), "{name} is the shipped script");
        assert!(
            text.lines()
                .any(|l| l == format!("# majordomus-hook: {name}")),
            "{name} carries the marker line"
        );
        assert!(is_executable(&path), "{name} is executable");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::UNIX_EPOCH))
            .expect("backdate the hook");
    }
    let before: Vec<_> = HOOKS
        .iter()
        .map(|n| {
            std::fs::metadata(dir.join(n))
                .and_then(|m| m.modified())
                .expect("mtime")
        })
        .collect();

    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("unchanged"));
    let after: Vec<_> = HOOKS
        .iter()
        .map(|n| {
            std::fs::metadata(dir.join(n))
                .and_then(|m| m.modified())
                .expect("mtime")
        })
        .collect();
    assert_eq!(before, after, "an idempotent install rewrites nothing");
    assert!(!dir.join("post-commit.pre-majordomus").exists());
}

#[test]
fn install_respects_core_hooks_path() {
    let repo = TestRepo::initialised();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    let dir = repo.path(".githooks");
    assert_eq!(report["dir"], dir.display().to_string().as_str());
    for name in HOOKS {
        assert_eq!(repo.read(&format!(".githooks/{name}")), shipped(name));
        assert!(is_executable(&dir.join(name)));
        assert!(!repo.path(".git/hooks").join(name).exists(), "{name}");
    }

    // git runs them from there.
    let episode = repo.start_episode();
    repo.write("notes.txt", "hello\n");
    repo.git(&["add", "notes.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Add notes"]));
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["session"], episode.as_str());
}

#[test]
fn install_chains_an_existing_hook_and_uninstall_restores_it() {
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    let log = repo.tmpdir().join("chained.log");
    write_script(
        &dir.join("post-commit"),
        &format!("echo \"the old post-commit ran\" >> '{}'\n", log.display()),
    );
    let old = std::fs::read(dir.join("post-commit")).expect("the old hook");

    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    let mut want = all("installed");
    want[0].1 = "chained".to_owned();
    assert_eq!(actions(&report), want);
    let kept = dir.join("post-commit.pre-majordomus");
    assert_eq!(std::fs::read(&kept).expect("the kept hook"), old);
    assert!(is_executable(&kept));
    assert_eq!(
        std::fs::read_to_string(dir.join("post-commit")).expect("ours"),
        shipped("post-commit")
    );

    // A real commit runs both: the old hook first, then majordomus.
    let episode = repo.start_episode();
    repo.write("notes.txt", "hello\n");
    repo.git(&["add", "notes.txt"]);
    let output = git_with_hooks(&repo, &["commit", "-q", "-m", "Add notes"]);
    assert_git_ok(&output);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "",
        "recording a commit prints nothing"
    );
    assert_eq!(
        std::fs::read_to_string(&log).expect("the old hook ran"),
        "the old post-commit ran\n"
    );
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["session"], episode.as_str());
    assert_eq!(recorded[0]["data"]["sha"], repo.head().as_str());
    assert_eq!(recorded[0]["data"]["subject"], "Add notes");

    // Reinstalling keeps the chain as it is.
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("unchanged"));
    assert_eq!(std::fs::read(&kept).expect("the kept hook"), old);

    let report = repo
        .run(&["--format", "json", "hooks", "uninstall"])
        .success()
        .json();
    let mut want = all("removed");
    want[0].1 = "restored".to_owned();
    assert_eq!(actions(&report), want);
    assert_eq!(
        std::fs::read(dir.join("post-commit")).expect("restored"),
        old
    );
    assert!(!kept.exists());
    for name in &HOOKS[1..] {
        assert!(!dir.join(name).exists(), "{name} removed");
    }

    // Uninstalled: a commit runs the old hook only.
    repo.write("notes.txt", "hello again\n");
    repo.git(&["add", "notes.txt"]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Edit notes"],
    ));
    assert_eq!(
        std::fs::read_to_string(&log).expect("log"),
        "the old post-commit ran\nthe old post-commit ran\n"
    );
    assert_eq!(repo.ledger_events("commit.recorded").len(), 1);
    let report = repo
        .run(&["--format", "json", "hooks", "uninstall"])
        .success()
        .json();
    let mut want = all("absent");
    want[0].1 = "foreign".to_owned();
    assert_eq!(actions(&report), want);
}

#[test]
fn install_refuses_when_the_chained_name_is_taken() {
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    write_script(&dir.join("post-commit"), "exit 0\n");
    write_script(&dir.join("post-commit.pre-majordomus"), "exit 0\n");
    let error = repo
        .run(&["--format", "json", "hooks", "install"])
        .json_error(3, "hooks.chain");
    assert!(
        error["fix"]
            .as_str()
            .is_some_and(|f| f.contains("post-commit.pre-majordomus")),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("post-commit")).expect("kept"),
        "#!/bin/sh\nexit 0\n",
        "neither hook is lost"
    );
    repo.run(&["hooks", "install"])
        .assert_human_error(3, "post-commit");
}

#[test]
fn install_needs_an_initialised_repository() {
    let repo = TestRepo::new();
    repo.run(&["--format", "json", "hooks", "install"])
        .json_error(3, "repository.initialised");
    assert!(!repo.path(".git/hooks/post-commit").exists());
}

// --- git hooks -------------------------------------------------------------------------

#[test]
fn a_real_commit_records_the_commit_for_the_open_episode() {
    let mut repo = TestRepo::initialised();
    repo.run(&["hooks", "install"]).success();

    // No episode open: nothing to record.
    repo.write("a.txt", "a\n");
    repo.git(&["add", "a.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Add a"]));
    assert!(repo.ledger_events("commit.recorded").is_empty());

    let episode = repo.start_episode();
    repo.now("2026-11-30T10:05:00Z");
    repo.write("b.txt", "b\n");
    repo.git(&["add", "b.txt"]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Add b\n\nWith a body."],
    ));
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["session"], episode.as_str());
    assert_eq!(recorded[0]["ts"], "2026-11-30T10:05:00Z");
    assert_eq!(
        recorded[0]["data"],
        json!({"sha": repo.head(), "subject": "Add b"})
    );
}

#[test]
fn pre_push_refuses_a_push_with_a_blocking_finding() {
    let repo = TestRepo::initialised();
    let origin = repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    let pushed = repo.head();
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    let file = format!(".ai/repo/knowledge/candidates/{id}.md");
    repo.write(
        &file,
        &format!(
            "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: A claim\ndate: 2026-11-30\nprovenance:\n  origin: authored\n  derived_from:\n  - file:src/gone.rs\n---\nA claim.\n"
        ),
    );
    repo.git(&["add", &file]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Add a claim"],
    ));

    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the push went through:\n{stderr}");
    assert!(
        stderr.contains(&format!("BLOCK {file} [knowledge.ref-resolves]")),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("majordomus: push refused: fix the blocking findings above, then push again"),
        "{stderr}"
    );
    assert_eq!(
        repo.git_in(&origin, &["rev-parse", "main"]),
        pushed,
        "nothing reached origin"
    );

    // By hand, with the line git writes on stdin: exit 3, the same findings.
    let line = format!("refs/heads/main {} refs/heads/main {pushed}\n", repo.head());
    let run = repo.run_with_stdin(&["hook", "pre-push", "origin", "url"], &line);
    assert_eq!(run.code(), 3, "{run}");
    assert_eq!(run.stdout(), "", "{run}");
    // Without a pushed ref there is nothing to judge.
    repo.run(&["hook", "pre-push", "origin", "url"]).success();

    repo.git(&["rm", "-q", &file]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Drop the claim"],
    ));
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), repo.head());
}

#[test]
fn hooks_are_inert_in_an_uninitialised_repository() {
    let repo = TestRepo::new();
    let before = repo.files();
    for args in [
        vec!["hook", "post-commit"],
        vec!["hook", "pre-push", "origin", "url"],
        vec!["hook", "post-checkout", "a", "b", "1"],
        vec!["hook", "post-merge", "0"],
    ] {
        let run = repo.run(&args);
        assert_eq!(
            (run.code(), run.stdout(), run.stderr()),
            (0, "", ""),
            "{run}"
        );
        let mut json_args = vec!["--format", "json"];
        json_args.extend(&args);
        let json = repo.run(&json_args).success().json();
        assert_eq!(
            json,
            json!({"did": "stepped-aside", "reason": "repository not initialised"}),
            "{args:?}"
        );
    }
    for hook in ["session-start", "session-end", "compact"] {
        let run = repo.run_with_stdin(&["hook", hook, "--provider", "claude-code"], START_PAYLOAD);
        assert_eq!((run.code(), run.stdout()), (0, ""), "{run}");
    }
    assert_eq!(changed_files(&before, &repo.files()), Vec::<String>::new());
    assert!(!repo.exists(".ai"));

    // Installed hooks in such a repository do not get in git's way either.
    let hooks_dir: PathBuf = repo.path(".git/hooks");
    for name in HOOKS {
        write_script(
            &hooks_dir.join(name),
            &shipped(name).replace("#!/bin/sh\n", ""),
        );
    }
    repo.write("a.txt", "a\n");
    repo.git(&["add", "a.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Add a"]));
    assert!(!repo.exists(".ai"));
}

#[test]
fn hooks_step_aside_during_a_rebase() {
    let repo = TestRepo::initialised();
    repo.run(&["hooks", "install"]).success();
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.commit("README.md", "# Topic\n", "Topic readme");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("README.md", "# Main\n", "Main readme");
    repo.git(&["checkout", "-q", "topic"]);
    let episode = repo.start_episode();
    assert_ne!(repo.head(), base);

    let output = git_with_hooks(&repo, &["rebase", "main"]);
    assert!(
        !output.status.success(),
        "the rebase should stop on the conflict"
    );
    assert!(
        repo.path(".git/rebase-merge").is_dir(),
        "a rebase is under way"
    );
    let ledger = repo.ledger_text();

    let run = repo.run(&["hook", "post-commit"]);
    assert_eq!(
        (run.code(), run.stdout(), run.stderr()),
        (0, "", ""),
        "{run}"
    );
    let json = repo
        .run(&["--format", "json", "hook", "post-commit"])
        .success()
        .json();
    assert_eq!(json["did"], "stepped-aside");
    assert!(
        json["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("git is in the middle of: rebase")),
        "{json}"
    );
    let json = repo
        .run(&["--format", "json", "hook", "post-checkout", "a", "b", "1"])
        .success()
        .json();
    assert_eq!(json["did"], "stepped-aside");
    assert_eq!(
        repo.ledger_text(),
        ledger,
        "a hook appended during a rebase"
    );

    // Finishing the rebase through git (which runs post-commit) records nothing either.
    repo.write("README.md", "# Topic on main\n");
    repo.git(&["add", "README.md"]);
    assert_git_ok(&git_with_hooks(&repo, &["rebase", "--continue"]));
    assert!(!repo.path(".git/rebase-merge").exists());
    assert_eq!(
        repo.ledger_text(),
        ledger,
        "a rewritten commit was recorded"
    );

    // Afterwards the hook records again.
    repo.run(&["hook", "post-commit"]).success();
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["session"], episode.as_str());
}

// --- provider hooks --------------------------------------------------------------------

#[test]
fn provider_session_start_opens_an_episode_and_prints_the_briefing() {
    let mut repo = TestRepo::initialised();
    // An earlier episode left an open question and a candidate.
    repo.now("2026-11-29T16:00:00Z");
    repo.start_episode();
    repo.run(&["question", "Is retention needed on CI?"])
        .success();
    repo.run(&["decision", "All git reads go through gix"])
        .success();
    repo.run(&["session", "close"]).success();
    repo.now("2026-11-30T10:00:00Z");

    let run = repo
        .run_with_stdin(
            &["hook", "session-start", "--provider", "claude-code"],
            START_PAYLOAD,
        )
        .success();
    let state = repo.episode_state().expect("an episode is open");
    let episode = state["id"].as_str().expect("id").to_owned();
    assert_eq!(state["provider"], "claude-code");
    assert!(
        run.stdout().starts_with(&format!(
            "majordomus episode {episode}\n\n## Open questions (1)\n"
        )),
        "{run}"
    );
    insta::assert_snapshot!("provider_session_start", repo.redact(run.stdout()));
    let opened = repo.ledger_events("session.opened");
    assert_eq!(opened.len(), 2);
    assert_eq!(opened[1]["session"], episode.as_str());
    assert_eq!(opened[1]["data"]["provider"], "claude-code");

    // Clients fire start hooks more than once: the open episode is kept.
    let json = repo
        .run_with_stdin(
            &[
                "--format",
                "json",
                "hook",
                "session-start",
                "--provider",
                "claude-code",
            ],
            r#"{"session_id":"abc","hook_event_name":"SessionStart","source":"compact"}"#,
        )
        .success()
        .json();
    assert_eq!(json["did"], "started");
    assert_eq!(json["episode"], episode.as_str());
    assert_eq!(json["already_open"], true);
    assert!(
        json["briefing"]
            .as_str()
            .is_some_and(|b| b.starts_with("## Open questions (1)")),
        "{json}"
    );
    assert_eq!(repo.ledger_events("session.opened").len(), 2);
}

#[test]
fn provider_session_end_closes_the_episode() {
    let repo = TestRepo::initialised();
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        START_PAYLOAD,
    )
    .success();
    let episode = repo.episode_id();
    repo.run(&["decision", "All git reads go through gix"])
        .success();

    let run = repo
        .run_with_stdin(
            &["hook", "session-end", "--provider", "claude-code"],
            END_PAYLOAD,
        )
        .success();
    let record = format!(".ai/repo/sessions/{episode}.md");
    let handover = format!(".ai/local/state/handovers/{episode}.md");
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        format!("majordomus: closed episode {episode} -> {record}; handover {handover}\n")
    );
    assert!(repo.episode_state().is_none());
    assert!(repo.exists(&record));
    assert!(repo.exists(&handover));
    // The end of an episode (SPEC §8): a checkpoint of how the work looked, the close
    // (which derives), the handover.
    let events: Vec<String> = repo
        .ledger()
        .iter()
        .rev()
        .take(4)
        .map(|l| l["event"].as_str().expect("event").to_owned())
        .collect();
    assert_eq!(
        events,
        [
            "handover.derived",
            "session.closed",
            "knowledge.derived",
            "checkpoint.recorded"
        ]
    );
    let checkpoint = repo
        .ledger_events("checkpoint.recorded")
        .pop()
        .expect("a checkpoint");
    let text = checkpoint["data"]["text"].as_str().expect("text");
    assert!(
        text.starts_with("session end: HEAD ") && text.contains(" on main, working tree clean"),
        "{text}"
    );
    assert_eq!(repo.record_ids(".ai/repo/knowledge/candidates").len(), 1);

    // Nothing open: nothing to do, still exit 0.
    let ledger = repo.ledger_text();
    let json = repo
        .run_with_stdin(
            &[
                "--format",
                "json",
                "hook",
                "session-end",
                "--provider",
                "claude-code",
            ],
            END_PAYLOAD,
        )
        .success()
        .json();
    assert_eq!(json, json!({"did": "no-open-episode"}));
    assert_eq!(repo.ledger_text(), ledger);
}

#[test]
fn a_failing_provider_hook_exits_0_and_is_recorded_for_doctor() {
    let repo = TestRepo::initialised();
    // A payload that cannot be read is ignored and recorded; the hook still opens the
    // episode (SPEC §8).
    let run = repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        "{\"session_id\": abc",
    );
    assert_eq!(run.code(), 0, "a provider hook never blocks: {run}");
    assert!(run.stdout().starts_with("majordomus episode "), "{run}");
    assert!(repo.episode_state().is_some(), "the episode was opened");
    let failed = repo.ledger_events("provider.event.failed");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["data"]["hook"], "session-start");
    assert_eq!(failed[0]["data"]["provider"], "claude-code");
    assert!(
        failed[0]["data"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("payload ignored: stdin is not JSON")),
        "{}",
        failed[0]
    );

    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().contains(&format!(
            "WARN majordomus.provider-events\n     WARN .ai/local/ledger.jsonl [majordomus.provider-events] #{} 2026-11-30T10:00:00Z: provider hook session-start failed: payload ignored: stdin is not JSON",
            failed[0]["seq"]
        )),
        "{run}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        (report["blocking"].clone(), report["advisory"].clone()),
        (json!(0), json!(1))
    );
    repo.run(&["session", "close"]).success();

    // Any failure, not just the payload: an unreadable policy, stamped with the episode.
    let episode = repo.start_episode();
    repo.write_policy("session: [\n");
    let run = repo.run_with_stdin(&["hook", "compact", "--provider", "claude-code"], "");
    assert_eq!(run.code(), 0, "{run}");
    assert!(
        run.stderr()
            .starts_with("majordomus: compact hook failed (recorded as provider.event.failed): "),
        "{run}"
    );
    let failed = repo.ledger_events("provider.event.failed");
    assert_eq!(failed.len(), 2);
    assert_eq!(failed[1]["data"]["hook"], "compact");
    assert_eq!(failed[1]["session"], episode.as_str());
}

#[test]
fn a_miswired_provider_hook_still_exits_0() {
    let repo = TestRepo::initialised();
    for args in [
        vec!["hook", "session-start", "--bogus"],
        vec!["hook", "compact", "--provider"],
        vec!["--format", "json", "hook", "session-end", "--no-such-flag"],
    ] {
        let run = repo.run_with_stdin(&args, START_PAYLOAD);
        assert_eq!(run.code(), 0, "{run}");
        assert_eq!(run.stdout(), "", "{run}");
    }
    assert!(repo.episode_state().is_none());
    // A git hook is not a provider hook: a usage error there is still exit 2.
    assert_eq!(repo.run(&["hook", "post-commit", "--bogus"]).code(), 2);
}
