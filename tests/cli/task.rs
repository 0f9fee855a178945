//! Tasks (SPEC §4, §6): `task start` under each `intent.binding` policy, `--exempt`
//! without `--because`, one active task per episode, `task finish` (blocked needs a
//! reason, nothing active, files outside the scope), and a decision stamped with the
//! active task whose derived reference resolves, in this clone and in a fresh one.

use serde_json::{Value, json};

use crate::common::TestRepo;
use crate::intent::{POLICY, binding, plan_repo};

/// The plan repository with `intent.binding` set to `policy` and an open episode.
fn started(policy: &str) -> TestRepo {
    let repo = plan_repo();
    repo.write_policy(&format!("{POLICY}  binding: {policy}\n"));
    repo.git(&["commit", "-q", "-am", &format!("intent.binding: {policy}")]);
    repo.start_episode();
    repo
}

/// `task start ARGS --format json`, expecting success.
#[track_caller]
fn start(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json", "task", "start"];
    all.extend_from_slice(args);
    repo.run(&all).success().json()
}

/// Runs a printed `fix:` line in the work tree; panics unless it succeeds.
#[track_caller]
fn run_fix(repo: &TestRepo, fix: &str) {
    let out = repo.sh_in(repo.root(), fix);
    assert!(
        out.status.success(),
        "the fix `{fix}` failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `fix:` line of a human error.
#[track_caller]
fn fix_line(run: &crate::common::Run) -> String {
    run.stderr()
        .lines()
        .find_map(|l| l.strip_prefix("fix: "))
        .unwrap_or_else(|| panic!("no fix line: {run}"))
        .to_owned()
}

fn no_task_started(repo: &TestRepo) {
    assert!(
        repo.ledger_events("task.started").is_empty(),
        "{}",
        repo.ledger_text()
    );
    let list = repo
        .run(&["--format", "json", "task", "list"])
        .success()
        .json();
    assert_eq!(list["tasks"], json!([]));
}

// --- intent.binding: off ---------------------------------------------------------------------

#[test]
fn off_without_flags_asks_nothing() {
    let repo = started("off");
    let json = start(&repo, &["Tidy the build script"]);
    assert_eq!(json["binding"], Value::Null);
    assert_eq!(json["task"]["binding"], Value::Null);
    assert_eq!(json["task"]["plan_revision"], Value::Null);
    let line = &repo.ledger_events("task.started")[0];
    assert_eq!(line["data"]["binding"], Value::Null, "{line}");
    // A scope alone is the task's property, not a question.
    repo.run(&["task", "finish"]).success();
    let json = start(&repo, &["Spike the cache", "--scope", "src/cache/"]);
    assert_eq!(json["binding"], Value::Null);
    assert_eq!(json["task"]["scope"], json!(["src/cache/"]));
}

#[test]
fn off_with_a_flag_asks_and_an_unknown_issue_stops_the_start() {
    let repo = started("off");
    let run = repo.run(&["task", "start", "Port the login", "--issue", "loggin"]);
    run.assert_human_error(3, "the intent binding refuses this: unknown_issue");
    assert_eq!(
        fix_line(&run),
        "refused: no intent declares issue `loggin`; name an issue of .ai/repo/intents/*.yaml"
    );
    repo.run(&[
        "--format",
        "json",
        "task",
        "start",
        "Port the login",
        "--issue",
        "loggin",
    ])
    .json_error(3, "intent.binding");
    no_task_started(&repo);

    // Doing what the fix says: name a declared issue.
    let json = start(&repo, &["Port the login", "--issue", "login"]);
    assert_eq!(json["binding"]["status"], "bound");
    assert_eq!(json["task"]["issue"], "login");
    assert_eq!(json["task"]["intent"], "auth");
    assert_eq!(json["task"]["scope"], json!(["src/auth/**"]));
    let answer = binding(&repo, &["--issue", "login"], 0);
    assert_eq!(json["task"]["plan_revision"], answer["plan_revision"]);
    assert_eq!(
        json["task"]["evidence_standing"],
        answer["evidence_standing"]
    );
    let line = &repo.ledger_events("task.started")[0];
    assert_eq!(line["data"]["binding"], "bound");
    assert_eq!(line["data"]["plan_revision"], answer["plan_revision"]);
}

#[test]
fn exempt_without_because_is_the_refusal_exemption_without_reason() {
    let repo = started("off");
    let run = repo.run(&["task", "start", "Fix a typo", "--exempt", "docs"]);
    run.assert_human_error(3, "exemption_without_reason");
    assert!(
        fix_line(&run).contains("add --because \"<why no intent serves this work>\""),
        "{run}"
    );
    let error = repo
        .run(&[
            "--format",
            "json",
            "task",
            "start",
            "Fix a typo",
            "--exempt",
            "docs",
        ])
        .json_error(3, "intent.binding");
    assert_eq!(error["class"], "refused", "not a usage error: {error}");
    no_task_started(&repo);
    let json = start(
        &repo,
        &[
            "Fix a typo",
            "--exempt",
            "docs",
            "--because",
            "a typo in the README",
        ],
    );
    assert_eq!(json["task"]["exemption"], "docs");
    assert_eq!(json["task"]["because"], "a typo in the README");
    assert_eq!(json["binding"]["status"], "exempt");
}

// --- intent.binding: advisory ----------------------------------------------------------------

#[test]
fn advisory_reports_a_refusal_in_a_note_and_the_task_starts() {
    let repo = started("advisory");
    let run = repo.run(&["task", "start", "Tidy up"]).success();
    assert!(run.stdout().starts_with("started task t-"), "{run}");
    assert!(
        run.stderr().starts_with(
            "note: intent.binding is advisory: the binding refused (nothing_named), and the task starts anyway: refused: nothing named"
        ),
        "{run}"
    );
    repo.run(&["task", "finish"]).success();
    let json = start(&repo, &["Invoice run", "--scope", "src/billing/run.rs"]);
    assert_eq!(json["binding"]["status"], "refused");
    assert_eq!(json["binding"]["causes"], json!(["intent_not_critiqued"]));
    assert!(
        json["advisory"]
            .as_str()
            .is_some_and(|a| a.contains("intent_not_critiqued")),
        "{json}"
    );
    // The refused answer pins nothing.
    assert_eq!(json["task"]["plan_revision"], Value::Null);
    assert_eq!(repo.ledger_events("task.started").len(), 2);
}

#[test]
fn advisory_still_stops_a_flag_given_explicitly() {
    let repo = started("advisory");
    repo.run(&[
        "--format", "json", "task", "start", "Invoice", "--issue", "invoice",
    ])
    .json_error(3, "intent.binding");
    no_task_started(&repo);
}

// --- intent.binding: required ------------------------------------------------------------------

#[test]
fn required_stops_task_start_and_plan_start_alike() {
    let repo = started("required");
    let run = repo.run(&["task", "start", "Tidy up"]);
    run.assert_human_error(3, "the intent binding refuses this: nothing_named");
    no_task_started(&repo);
    let run = repo.run(&[
        "task",
        "start",
        "Invoice run",
        "--scope",
        "src/billing/run.rs",
    ]);
    run.assert_human_error(3, "intent_not_critiqued");
    repo.run(&["--format", "json", "plan", "start", "invoice"])
        .json_error(3, "intent.binding");

    // An unreadable plan stops both, whatever is asked.
    repo.write(".ai/repo/intents/billing.yaml", "id: billing\nstatus: [\n");
    let before = repo.read(".ai/repo/intents/auth.yaml");
    for args in [
        &["task", "start", "Port the login", "--issue", "login"][..],
        &[
            "task",
            "start",
            "Fix a typo",
            "--exempt",
            "docs",
            "--because",
            "typo",
        ][..],
        &["plan", "start", "login"][..],
    ] {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        let error = repo.run(&all).json_error(3, "intent.binding");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("plan_unreadable")),
            "{error}"
        );
    }
    no_task_started(&repo);
    assert_eq!(repo.read(".ai/repo/intents/auth.yaml"), before);

    // A binding that passes starts under required.
    repo.git(&["checkout", "-q", "--", ".ai/repo/intents/billing.yaml"]);
    let json = start(&repo, &["Port the login", "--issue", "login"]);
    assert_eq!(json["binding"]["status"], "bound");
}

// --- One task at a time; finishing ----------------------------------------------------------

#[test]
fn one_active_task_per_episode_and_the_fix_works() {
    let repo = started("off");
    let first = start(&repo, &["Port the login", "--issue", "login"]);
    let id = first["task"]["id"].as_str().expect("task id");
    let run = repo.run(&["task", "start", "Something else"]);
    run.assert_human_error(
        3,
        &format!("task {id} is still active in this episode (Port the login); one task at a time: finish it (or `--status blocked --reason \"<why>\"`), then start the next"),
    );
    repo.run(&["--format", "json", "task", "start", "Something else"])
        .json_error(3, "task.one-active");
    let fix = fix_line(&run);
    assert_eq!(fix, "majordomus task finish");
    run_fix(&repo, "majordomus task finish");
    start(&repo, &["Something else"]);
}

#[test]
fn finishing_blocked_needs_a_reason_and_the_fix_works() {
    let repo = started("off");
    start(&repo, &["Port the login", "--issue", "login"]);
    let run = repo.run(&["task", "finish", "--status", "blocked"]);
    run.assert_human_error(3, "a blocked task needs --reason");
    repo.run(&["--format", "json", "task", "finish", "--status", "blocked"])
        .json_error(3, "task.reason");
    let fix = fix_line(&run);
    assert_eq!(
        fix,
        "majordomus task finish --status blocked --reason \"<what blocks it>\""
    );
    run_fix(
        &repo,
        &fix.replace("<what blocks it>", "the API is not released yet"),
    );
    let line = &repo.ledger_events("task.finished")[0];
    assert_eq!(line["data"]["status"], "blocked");
    assert_eq!(line["data"]["reason"], "the API is not released yet");
}

#[test]
fn finishing_with_nothing_active_is_refused_and_the_fix_works() {
    let repo = started("off");
    let run = repo.run(&["task", "finish"]);
    run.assert_human_error(3, "no task is active in this episode");
    repo.run(&["--format", "json", "task", "finish"])
        .json_error(3, "task.active");
    let fix = fix_line(&run);
    assert_eq!(fix, "majordomus task start \"<what the task is>\"");
    run_fix(
        &repo,
        &fix.replace("<what the task is>", "Tidy the build script"),
    );
    repo.run(&["task", "finish"]).success();
}

#[test]
fn finish_says_which_files_the_task_changed_outside_its_scope() {
    let repo = started("off");
    start(&repo, &["Port the login", "--issue", "login"]);
    repo.commit(
        "src/auth/login.rs",
        "pub fn login() -> bool { true }\n",
        "Log in",
    );
    repo.commit("README.md", "# Now with login\n", "Mention the login");
    // pre-push says it too, as a note that never refuses the push (when HEAD is pushed).
    let zeros = "0".repeat(40);
    let line = format!("refs/heads/main {} refs/heads/main {zeros}\n", repo.head());
    let push = repo
        .run_with_stdin(&["hook", "pre-push", "origin", "url"], &line)
        .success();
    assert!(
        push.stderr().contains("README.md")
            && push.stderr().contains("[task.scope]")
            && push.stderr().contains("outside its scope (src/auth/**)"),
        "{push}"
    );
    let other = format!(
        "refs/heads/other {} refs/heads/other {zeros}\n",
        "1".repeat(40)
    );
    let push = repo
        .run_with_stdin(&["hook", "pre-push", "origin", "url"], &other)
        .success();
    assert!(!push.stderr().contains("task.scope"), "{push}");
    let run = repo.run(&["task", "finish"]).success();
    assert_eq!(
        run.stderr(),
        "note: the task's commits changed files outside its scope (src/auth/**): README.md\n"
    );
    let task = &repo
        .run(&["--format", "json", "task", "list"])
        .success()
        .json()["tasks"][0];
    assert_eq!(task["outside_scope"], json!(["README.md"]));
    let note = repo.read(&format!(
        ".ai/local/state/completed/{}.md",
        task["id"].as_str().expect("id")
    ));
    assert!(
        note.contains("\n## Outside the scope\n- README.md\n"),
        "{note}"
    );
    assert!(note.contains("outside_scope:\n- README.md\n"), "{note}");

    // Within the scope: nothing said.
    start(&repo, &["Polish the login", "--issue", "login"]);
    repo.commit(
        "src/auth/login.rs",
        "pub fn login() -> bool { false }\n",
        "Refuse",
    );
    let run = repo.run(&["task", "finish"]).success();
    assert_eq!(run.stderr(), "");
}

// --- Decisions stamped with the active task ---------------------------------------------------

#[test]
fn a_decision_without_task_is_stamped_with_the_active_task_and_its_reference_resolves() {
    let repo = started("off");
    let task = start(&repo, &["Port the login", "--issue", "login"])["task"]["id"]
        .as_str()
        .expect("task id")
        .to_owned();
    repo.run(&["decision", "Sessions expire after 30 days"])
        .success();
    let line = &repo.ledger_events("decision.recorded")[0];
    assert_eq!(line["task"], task.as_str(), "{line}");
    repo.run(&["task", "finish"]).success();
    repo.run(&["session", "close"]).success();

    let with_decision: Vec<String> = repo
        .record_ids(".ai/repo/knowledge/candidates")
        .into_iter()
        .filter(|id| {
            repo.read(&format!(".ai/repo/knowledge/candidates/{id}.md"))
                .contains(&format!("decision:{task}"))
        })
        .collect();
    assert_eq!(
        with_decision.len(),
        1,
        "one candidate names decision:{task}"
    );
    repo.run(&["knowledge", "check"]).success();

    // A fresh clone has no ledger: the session record's `tasks` resolve task: and decision:.
    repo.git(&["add", ".ai/repo"]);
    repo.git(&["commit", "-q", "-m", "Record the episode"]);
    let session = repo.record_ids(".ai/repo/sessions");
    let record = repo.read(&format!(".ai/repo/sessions/{}.md", session[0]));
    assert!(record.contains(&format!("tasks:\n- {task}\n")), "{record}");
    repo.git_in(repo.base(), &["clone", "-q", "repo", "clone"]);
    let clone = repo.base().join("clone");
    assert!(!clone.join(".ai/local/ledger.jsonl").exists());
    let run = repo.run_in(&clone, &["--format", "json", "knowledge", "check"]);
    assert_eq!(run.code(), 0, "{run}");
    assert_eq!(run.json()["findings"], json!([]));
}

#[test]
fn the_scope_notes_fix_runs_as_printed_and_moves_the_file_to_a_task_of_its_own() {
    let repo = started("off");
    start(&repo, &["Port the login", "--issue", "login"]);
    repo.commit(
        "src/auth/login.rs",
        "pub fn login() -> bool { true }\n",
        "Log in",
    );
    repo.commit("README.md", "# Now with login\n", "Mention the login");
    let zeros = "0".repeat(40);
    let push = |repo: &TestRepo| {
        let line = format!("refs/heads/main {} refs/heads/main {zeros}\n", repo.head());
        repo.run_with_stdin(&["hook", "pre-push", "origin", "url"], &line)
            .success()
    };
    let first = push(&repo);
    let notes: Vec<&str> = first
        .stderr()
        .lines()
        .filter(|l| l.contains("[task.scope]"))
        .collect();
    assert_eq!(notes.len(), 1, "{first}");
    let fixes = crate::common::fix_lines(first.stderr());
    assert_eq!(fixes.len(), 1, "{first}");
    let task = repo
        .run(&["--format", "json", "task", "list"])
        .success()
        .json()["active"]
        .as_str()
        .expect("an active task")
        .to_owned();
    assert_eq!(
        fixes[0],
        format!(
            "majordomus task finish && majordomus task start 'Work on README.md (outside the scope of {task})' --scope README.md"
        )
    );
    repo.run_printed(&fixes[0]);
    // The file now has a task of its own: the next push says nothing of it.
    let list = repo
        .run(&["--format", "json", "task", "list"])
        .success()
        .json();
    let active = list["active"].as_str().expect("the new task is active");
    assert_ne!(active, task);
    let tasks = list["tasks"].as_array().expect("tasks");
    let new = tasks
        .iter()
        .find(|t| t["id"] == active)
        .expect("the new task");
    assert_eq!(new["scope"], json!(["README.md"]));
    let second = push(&repo);
    assert!(!second.stderr().contains("task.scope"), "{second}");
}

#[test]
fn a_secret_shape_in_a_scope_entry_never_reaches_the_ledger_or_the_task_record() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    let key = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    let scope = format!("config/{key}/");
    let started = start(&repo, &["Rotate the key", "--scope", &scope]);
    let task = started["task"]["id"].as_str().expect("task id").to_owned();
    assert!(!repo.ledger_text().contains(&key), "{}", repo.ledger_text());
    let record = repo.read(&format!(".ai/local/state/tasks/{task}.json"));
    assert!(!record.contains(&key), "{record}");
    assert!(!started.to_string().contains(&key), "{started}");
}
