//! `TestRepo`: a throwaway git repository with a pinned environment, the `majordomus`
//! runner, and the redaction of run-specific values (temp paths, object ids, episode and
//! question ids) before snapshots.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde_json::Value;
use tempfile::TempDir;

/// The pinned clock every repository starts at (git dates and `MAJORDOMUS_NOW`).
pub const NOW: &str = "2026-11-30T10:00:00Z";

/// A run that takes longer than this is a hang, not a slow machine.
const TIMEOUT: Duration = Duration::from_secs(120);

/// How long a test waits for something that happens at once on an idle machine (a peer's
/// heartbeat, a question reaching a peer, a browser's form): a guard against a hang, far
/// above any wait of the product, never a measurement. A test polls until what it waits
/// for is there and goes on at once; what bounds the product's own waits is checked where
/// a clock or a timeout is in the test's hands (unit tests), or in a bench.
pub const WAIT: Duration = Duration::from_secs(180);

/// An episode id: `YYYYMMDDTHHMMSSZ-<6 hex>`.
pub static EPISODE_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{8}T\d{6}Z-[0-9a-f]{6}").expect("valid regex"));
/// A question id: `q-<10 hex>`.
pub static QUESTION_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bq-[0-9a-f]{10}\b").expect("valid regex"));
/// A task id: `t-<YYYYMMDD>-<4 hex>`.
pub static TASK_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bt-\d{8}-[0-9a-f]{4}\b").expect("valid regex"));
static OID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[0-9a-f]{40}\b").expect("valid regex"));
static SHORT_OID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[0-9a-f]{12}\b").expect("valid regex"));

/// The `majordomus` binary cargo built for this test run.
pub fn bin() -> &'static Path {
    assert_cmd::cargo::cargo_bin!("majordomus")
}

/// A temporary directory holding a work tree (`repo/`), a `HOME` (`home/`) and a `TMPDIR`
/// (`tmp/`); every git and majordomus run in it sees the same pinned environment.
#[derive(Debug)]
pub struct TestRepo {
    temp: TempDir,
    /// `temp` canonicalised: majordomus prints canonical paths.
    base: PathBuf,
    root: PathBuf,
    now: String,
}

impl Drop for TestRepo {
    /// No process a test started outlives it: an agent client may leave a daemon running
    /// from its own `HOME` (Codex's `app-server`), which would hold the temporary directory
    /// and load the machine for the tests after it.
    fn drop(&mut self) {
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in procs.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == std::process::id() {
                continue;
            }
            if std::fs::read_link(entry.path().join("exe"))
                .is_ok_and(|exe| exe.starts_with(&self.base))
            {
                let _ = StdCommand::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
        }
    }
}

/// What one `majordomus` run printed and how it exited.
#[derive(Debug, Clone)]
pub struct Run {
    command: String,
    stdout: String,
    stderr: String,
    code: i32,
    signal: Option<i32>,
}

impl TestRepo {
    /// A directory that is not a git repository.
    pub fn unversioned() -> TestRepo {
        let temp = tempfile::Builder::new()
            .prefix("majordomus-test-")
            .tempdir()
            .expect("create a temporary directory");
        let base = temp.path().canonicalize().expect("canonical temp path");
        let root = base.join("repo");
        for dir in [&root, &base.join("home"), &base.join("tmp")] {
            std::fs::create_dir_all(dir).expect("create test directories");
        }
        TestRepo {
            temp,
            base,
            root,
            now: NOW.to_owned(),
        }
    }

    /// `git init -b main`, no commit yet.
    pub fn unborn() -> TestRepo {
        let repo = TestRepo::unversioned();
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// A git repository with one commit (`README.md`), not initialised for majordomus.
    pub fn new() -> TestRepo {
        let repo = TestRepo::unborn();
        repo.commit("README.md", "# A test project\n", "Initial commit");
        repo
    }

    /// A git repository where `majordomus init` ran and its result is committed, so the
    /// work tree is clean.
    pub fn initialised() -> TestRepo {
        let repo = TestRepo::new();
        repo.run(&["init"]).success();
        repo.git(&["add", ".ai", ".gitignore"]);
        repo.git(&["commit", "-q", "-m", "majordomus: init"]);
        repo
    }

    /// The work tree root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The temporary directory holding the work tree; other repositories (an origin, a
    /// clone) may live beside `repo/` in it.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The `TMPDIR` majordomus sees.
    pub fn tmpdir(&self) -> PathBuf {
        self.base.join("tmp")
    }

    /// Moves the pinned clock (RFC 3339): later git commits and majordomus runs see it.
    pub fn now(&mut self, at: &str) -> &mut TestRepo {
        at.clone_into(&mut self.now);
        self
    }

    /// Variables removed from, then set in, the environment of every run.
    fn environment(&self) -> (Vec<OsString>, Vec<(&'static str, OsString)>) {
        let removed = std::env::vars_os()
            .map(|(k, _)| k)
            .filter(|k| {
                let k = k.to_string_lossy();
                // CI changes the reasoning mode: a test that wants it sets it.
                k.starts_with("MAJORDOMUS_")
                    || k.starts_with("GIT_")
                    || k == "LINES"
                    || k == "CI"
                    || k == "CODEX_HOME"
            })
            .collect();
        let home = self.base.join("home");
        let set = vec![
            ("HOME", home.clone().into_os_string()),
            ("XDG_CONFIG_HOME", home.join(".config").into_os_string()),
            ("TMPDIR", self.tmpdir().into_os_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
            (
                "GIT_CEILING_DIRECTORIES",
                self.base.clone().into_os_string(),
            ),
            ("GIT_AUTHOR_NAME", "Ada Tester".into()),
            ("GIT_AUTHOR_EMAIL", "ada@example.invalid".into()),
            ("GIT_COMMITTER_NAME", "Ada Tester".into()),
            ("GIT_COMMITTER_EMAIL", "ada@example.invalid".into()),
            ("GIT_AUTHOR_DATE", self.now.clone().into()),
            ("GIT_COMMITTER_DATE", self.now.clone().into()),
            ("MAJORDOMUS_NOW", self.now.clone().into()),
            ("COLUMNS", "100".into()),
            ("LC_ALL", "C".into()),
            ("TZ", "UTC".into()),
        ];
        (removed, set)
    }

    fn pin(&self, cmd: &mut StdCommand) {
        let (removed, set) = self.environment();
        for key in removed {
            cmd.env_remove(key);
        }
        cmd.envs(set);
    }

    /// A `std::process::Command` for the majordomus binary in `dir` with the pinned
    /// environment (for tests that spawn many processes at once).
    pub fn command_in(&self, dir: &Path, args: &[&str]) -> StdCommand {
        let mut cmd = StdCommand::new(bin());
        cmd.args(args).current_dir(dir);
        self.pin(&mut cmd);
        cmd
    }

    /// Runs `majordomus ARGS` at the root in `n` processes at once (stdin on `/dev/null`);
    /// returns each run, in spawn order. A deadlock fails the test (see [`run_parallel`]).
    #[must_use]
    pub fn run_concurrently(&self, n: usize, args: &[&str]) -> Vec<Run> {
        let command = format!("majordomus {} </dev/null", args.join(" "));
        run_parallel(
            (0..n)
                .map(|_| (command.clone(), self.command_in(&self.root, args), None))
                .collect(),
        )
    }

    /// A copy of the work tree at `dir` (its `.git` and `.ai/local/` included), in a new
    /// temporary directory with its own `HOME` and `TMPDIR`: a field trial's repository
    /// as it stands, run against without touching it.
    pub fn copied_from(dir: &Path) -> TestRepo {
        let copy = TestRepo::unversioned();
        let _ = std::fs::remove_dir_all(&copy.root);
        copy_dir(dir, &copy.root);
        copy
    }

    /// A copy of this repository, its `HOME` and `TMPDIR` in a new temporary directory at
    /// the same clock: the same state to run one command against many times. (A remote's
    /// URL still names the original's `origin.git`; linked worktrees are not copied.)
    pub fn copy(&self) -> TestRepo {
        let mut copy = TestRepo::unversioned();
        for name in ["repo", "home", "tmp", "origin.git"] {
            let from = self.base.join(name);
            if from.exists() {
                let to = copy.base.join(name);
                let _ = std::fs::remove_dir_all(&to);
                copy_dir(&from, &to);
            }
        }
        copy.now.clone_from(&self.now);
        copy
    }

    /// Runs `majordomus ARGS` at the root, stdin empty.
    #[must_use]
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.root, args)
    }

    /// Runs `majordomus ARGS` in `dir`, stdin empty.
    #[must_use]
    pub fn run_in(&self, dir: &Path, args: &[&str]) -> Run {
        self.assert_cmd(dir, args, None)
    }

    /// Runs `majordomus ARGS` at the root with `stdin` piped in.
    #[must_use]
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        self.assert_cmd(&self.root, args, Some(stdin))
    }

    /// Runs `majordomus ARGS` at the root with extra environment variables set after the
    /// pinned ones (so a test can set `MAJORDOMUS_*` on purpose), and `stdin` piped in.
    #[must_use]
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Run {
        let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("majordomus");
        let (removed, set) = self.environment();
        for key in removed {
            cmd.env_remove(key);
        }
        cmd.envs(set)
            .envs(env.iter().copied())
            .args(args)
            .current_dir(&self.root)
            .timeout(TIMEOUT)
            .write_stdin(stdin);
        let output = cmd.output().expect("spawn majordomus");
        Run::from_output(format!("majordomus {}", args.join(" ")), output)
    }

    /// Starts `majordomus ARGS` at the root with extra environment and returns it running
    /// (stdout and stderr piped), for a test that signals it; finish with [`Run::from_child`].
    #[must_use]
    pub fn spawn_env(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        let mut cmd = std::process::Command::new(bin());
        let (removed, set) = self.environment();
        for key in removed {
            cmd.env_remove(key);
        }
        cmd.envs(set)
            .envs(env.iter().copied())
            .args(args)
            .current_dir(&self.root)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn majordomus")
    }

    /// Runs `majordomus ARGS` at the root with stdin on `/dev/null` (no stdin at all).
    #[must_use]
    pub fn run_without_stdin(&self, args: &[&str]) -> Run {
        let mut cmd = self.command_in(&self.root, args);
        cmd.stdin(Stdio::null());
        let output = cmd.output().expect("spawn majordomus");
        Run::from_output(format!("majordomus {} </dev/null", args.join(" ")), output)
    }

    fn assert_cmd(&self, dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
        let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("majordomus");
        let (removed, set) = self.environment();
        for key in removed {
            cmd.env_remove(key);
        }
        cmd.envs(set).args(args).current_dir(dir).timeout(TIMEOUT);
        if let Some(input) = stdin {
            cmd.write_stdin(input);
        }
        let output = cmd.output().expect("spawn majordomus");
        Run::from_output(format!("majordomus {}", args.join(" ")), output)
    }

    /// Runs `git ARGS` in `dir`; panics unless it succeeds; returns stdout, trimmed.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let mut cmd = StdCommand::new("git");
        cmd.args(args).current_dir(dir).stdin(Stdio::null());
        self.pin(&mut cmd);
        let output = cmd.output().expect("spawn git");
        git_succeeded(dir, args, &output)
    }

    /// Runs `git ARGS` in `dir` with `input` on its stdin; asserts success, returns stdout
    /// trimmed.
    pub fn git_in_with_input(&self, dir: &Path, args: &[&str], input: &str) -> String {
        use std::io::Write as _;
        let mut cmd = StdCommand::new("git");
        cmd.args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.pin(&mut cmd);
        let mut child = cmd.spawn().expect("spawn git");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write git's stdin");
        let output = child.wait_with_output().expect("wait for git");
        git_succeeded(dir, args, &output)
    }

    /// Runs `git ARGS` at the root.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    /// The full id of HEAD.
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// Writes `path`, stages and commits it with `message` at the pinned clock; returns the
    /// commit id.
    pub fn commit(&self, path: &str, contents: &str, message: &str) -> String {
        self.write(path, contents);
        self.git(&["add", "--", path]);
        self.git(&["commit", "-q", "-m", message]);
        self.head()
    }

    /// `rel` under the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    pub fn read(&self, rel: &str) -> String {
        let path = self.path(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    pub fn write(&self, rel: &str, contents: &str) {
        let path = self.path(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create parent directories");
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// Writes `contents` to `rel` under the pinned `HOME` (a client's user settings).
    pub fn write_home(&self, rel: &str, contents: &str) {
        let path = self.base.join("home").join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create parent directories");
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// The text of `rel` under the pinned `HOME`.
    pub fn read_home(&self, rel: &str) -> String {
        let path = self.base.join("home").join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// Replaces `.ai/repo/policy.yaml`.
    pub fn write_policy(&self, yaml: &str) {
        self.write(".ai/repo/policy.yaml", yaml);
    }

    /// The ledger's raw text; panics when there is no ledger (a test that reads the
    /// ledger expects one: a missing ledger is a failure, not an empty history).
    #[track_caller]
    pub fn ledger_text(&self) -> String {
        let path = self.path(".ai/local/ledger.jsonl");
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "no ledger to read at {} ({e}); use ledger_text_if_any where none may exist",
                path.display()
            )
        })
    }

    /// The ledger's raw text, or `None` when there is no ledger file: for a test that
    /// means "there may be no ledger" (a refused first write, a repository never used).
    pub fn ledger_text_if_any(&self) -> Option<String> {
        let path = self.path(".ai/local/ledger.jsonl");
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => panic!("read {}: {e}", path.display()),
        }
    }

    /// Every ledger line, parsed; panics on a line that is not JSON, and when there is no
    /// ledger.
    #[track_caller]
    pub fn ledger(&self) -> Vec<Value> {
        parse_ledger(&self.ledger_text())
    }

    /// The ledger lines of `event`; panics when there is no ledger.
    #[track_caller]
    pub fn ledger_events(&self, event: &str) -> Vec<Value> {
        self.ledger()
            .into_iter()
            .filter(|l| l["event"] == event)
            .collect()
    }

    /// The ledger lines of `event`, none when there is no ledger file: for a test that
    /// means "nothing was recorded, if anything ever was" (a repository where no episode
    /// was ever opened has no ledger).
    pub fn ledger_events_if_any(&self, event: &str) -> Vec<Value> {
        parse_ledger(&self.ledger_text_if_any().unwrap_or_default())
            .into_iter()
            .filter(|l| l["event"] == event)
            .collect()
    }

    /// Appends a ledger line in the exact format `Ledger::append` writes (`seq` one past
    /// the last, `ts` the pinned clock, stamped with the open episode if any), for lines
    /// a test needs before the command that writes them exists or to forge what a hook
    /// would have written.
    pub fn append_ledger_line(&self, event: &str, task: Option<&str>, data: Value) {
        // The first line makes the ledger.
        let mut text = self.ledger_text_if_any().unwrap_or_default();
        let seq = parse_ledger(&text)
            .iter()
            .filter_map(|l| l["seq"].as_u64())
            .max()
            .unwrap_or(0)
            + 1;
        let session = self
            .episode_state()
            .map(|e| e["id"].clone())
            .unwrap_or(Value::Null);
        let line = serde_json::json!({
            "seq": seq,
            "ts": self.now,
            "event": event,
            "session": session,
            "task": task,
            "data": data,
        });
        text.push_str(&serde_json::to_string(&line).expect("serialises"));
        text.push('\n');
        std::fs::write(self.path(".ai/local/ledger.jsonl"), text).expect("write the ledger");
    }

    /// Appends a `task.started` line for `task` in the open episode, as `task start`
    /// writes it, so writers accept `--task <task>`.
    pub fn append_task_started(&self, task: &str, description: &str) {
        self.append_ledger_line(
            "task.started",
            Some(task),
            serde_json::json!({"description": description, "scope": []}),
        );
    }

    /// `.ai/local/state/episode.json`, when an episode is open.
    pub fn episode_state(&self) -> Option<Value> {
        let path = self.path(".ai/local/state/episode.json");
        let text = std::fs::read_to_string(path).ok()?;
        Some(serde_json::from_str(&text).expect("episode.json is JSON"))
    }

    /// The id of the open episode; panics when none is open.
    pub fn episode_id(&self) -> String {
        let state = self.episode_state().expect("an episode is open");
        state["id"].as_str().expect("episode id").to_owned()
    }

    /// `session start` (must succeed); returns the new episode id.
    pub fn start_episode(&self) -> String {
        self.run(&["session", "start"]).success();
        self.episode_id()
    }

    /// Replaces run-specific values with stable placeholders.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.replace(&self.base.display().to_string(), "[TEMP]");
        let raw = self.temp.path().display().to_string();
        if raw != self.base.display().to_string() {
            out = out.replace(&raw, "[TEMP]");
        }
        let out = EPISODE_ID.replace_all(&out, "[EPISODE]");
        let out = QUESTION_ID.replace_all(&out, "[QID]");
        let out = TASK_ID.replace_all(&out, "[TASK]");
        let out = OID.replace_all(&out, "[OID]");
        SHORT_OID.replace_all(&out, "[SHORT]").into_owned()
    }

    /// Every file under the root except `.git/` and the ledger index (derived, rewritten by
    /// any read that finds the ledger grown), with its bytes and modification time: what
    /// "nothing was written" compares. A secret scan reads [`TestRepo::all_files`].
    pub fn files(&self) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
        self.walk_files(false)
    }

    /// Every file under the root except `.git/`, the derived caches (the ledger index, the
    /// recall index) included: what a secret scan must read, since a cache is a file on
    /// disk like any other.
    pub fn all_files(&self) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
        self.walk_files(true)
    }

    fn walk_files(&self, derived: bool) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
        fn walk(
            dir: &Path,
            root: &Path,
            derived: bool,
            out: &mut BTreeMap<String, (Vec<u8>, std::time::SystemTime)>,
        ) {
            for entry in std::fs::read_dir(dir).expect("list directory") {
                let entry = entry.expect("directory entry");
                let path = entry.path();
                let name = entry.file_name();
                if name == ".git"
                    || (!derived && (name == "ledger-index" || name == "ledger-index.json"))
                {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, root, derived, out);
                } else {
                    let rel = path
                        .strip_prefix(root)
                        .expect("under root")
                        .to_string_lossy()
                        .into_owned();
                    let bytes = std::fs::read(&path).expect("read file");
                    let modified = entry
                        .metadata()
                        .and_then(|m| m.modified())
                        .expect("modification time");
                    out.insert(rel, (bytes, modified));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.root, &self.root, derived, &mut out);
        out
    }
}

/// Ledger text parsed line by line; panics on a line that is not JSON.
#[track_caller]
fn parse_ledger(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("ledger line {l:?}: {e}")))
        .collect()
}

/// A parallel run that takes longer than this is a deadlock (or a livelock): its
/// processes are killed and the test fails, instead of hanging.
pub const PARALLEL_DEADLINE: Duration = Duration::from_secs(90);

/// Starts every `(label, command, stdin)` at once and waits for all of them until
/// [`PARALLEL_DEADLINE`]; past it, kills those still running and panics naming them.
/// Output goes to files, not pipes, so a process never blocks on a full pipe nobody reads.
/// Returns each run, in the given order.
pub fn run_parallel(commands: Vec<(String, StdCommand, Option<String>)>) -> Vec<Run> {
    use std::io::{Read, Seek, Write};
    let started = std::time::Instant::now();
    let mut running = Vec::new();
    for (label, mut cmd, stdin) in commands {
        let out = tempfile::tempfile().expect("a file for stdout");
        let err = tempfile::tempfile().expect("a file for stderr");
        cmd.stdout(out.try_clone().expect("clone"))
            .stderr(err.try_clone().expect("clone"));
        let input = match stdin {
            Some(text) => {
                let mut file = tempfile::tempfile().expect("a file for stdin");
                file.write_all(text.as_bytes()).expect("write stdin");
                file.rewind().expect("rewind stdin");
                Stdio::from(file)
            }
            None => Stdio::null(),
        };
        cmd.stdin(input);
        let child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {label}: {e}"));
        running.push((label, child, out, err, None));
    }
    loop {
        let mut pending = 0;
        for (_, child, _, _, status) in &mut running {
            if status.is_none() {
                *status = child.try_wait().expect("poll a child");
                pending += usize::from(status.is_none());
            }
        }
        if pending == 0 {
            break;
        }
        if started.elapsed() > PARALLEL_DEADLINE {
            let mut hung = Vec::new();
            for (label, child, _, _, status) in &mut running {
                if status.is_none() {
                    let _ = child.kill();
                    let _ = child.wait();
                    hung.push(label.clone());
                }
            }
            panic!(
                "{} of {} parallel runs still running after {PARALLEL_DEADLINE:?} (killed): {hung:?}",
                hung.len(),
                running.len()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    running
        .into_iter()
        .map(|(label, _, mut out, mut err, status)| {
            let read = |file: &mut std::fs::File| {
                let mut bytes = Vec::new();
                file.rewind().expect("rewind output");
                file.read_to_end(&mut bytes).expect("read output");
                bytes
            };
            let output = std::process::Output {
                status: status.expect("every run ended"),
                stdout: read(&mut out),
                stderr: read(&mut err),
            };
            Run::from_output(label, output)
        })
        .collect()
}

impl Run {
    /// Waits for a child started with [`TestRepo::spawn_env`].
    pub fn from_child(command: &str, child: std::process::Child) -> Run {
        let output = child.wait_with_output().expect("wait for majordomus");
        Run::from_output(command.to_owned(), output)
    }

    fn from_output(command: String, output: std::process::Output) -> Run {
        use std::os::unix::process::ExitStatusExt;
        Run {
            signal: output.status.signal(),
            command,
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
            // A signal is not an exit code; -1 never matches an expected one.
            code: output.status.code().unwrap_or(-1),
        }
    }

    pub fn stdout(&self) -> &str {
        &self.stdout
    }

    pub fn stderr(&self) -> &str {
        &self.stderr
    }

    pub fn code(&self) -> i32 {
        self.code
    }

    /// The signal that killed the process, if one did.
    pub fn signal(&self) -> Option<i32> {
        self.signal
    }

    /// Panics unless the run exited with `code`.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Run {
        assert_eq!(self.code, code, "unexpected exit code of {self}");
        self
    }

    /// Panics unless the run exited 0.
    #[track_caller]
    pub fn success(self) -> Run {
        self.expect_code(0)
    }

    /// Stdout parsed as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout of {self} is not JSON: {e}"))
    }

    /// Panics unless this is a refusal or error with exit `code` and rule `rule` in its
    /// human form: `majordomus: <message>` on stderr (then `fix:` lines), nothing on stdout.
    #[track_caller]
    pub fn assert_human_error(&self, code: i32, needle: &str) {
        assert_eq!(self.code, code, "unexpected exit code of {self}");
        assert_eq!(self.stdout, "", "an error prints nothing on stdout: {self}");
        let first = self.stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("majordomus: ") && first.contains(needle),
            "first stderr line should be `majordomus: ...{needle}...`: {self}"
        );
    }

    /// The `error` object of a `--format json` failure; panics unless its code and rule
    /// are `code` and `rule` and it has a message.
    #[track_caller]
    pub fn json_error(&self, code: i32, rule: &str) -> Value {
        assert_eq!(self.code, code, "unexpected exit code of {self}");
        let json = self.json();
        let error = json["error"].clone();
        assert_eq!(error["code"], code, "error.code of {self}");
        assert_eq!(error["rule"], rule, "error.rule of {self}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error.message of {self}"
        );
        error
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` (exit {})\n--- stdout ---\n{}--- stderr ---\n{}",
            self.command, self.code, self.stdout, self.stderr
        )
    }
}

/// The closed record's front matter (as YAML → JSON, keys in file order) and its body.
pub fn split_record(text: &str) -> (Vec<String>, Value, String) {
    let rest = text
        .strip_prefix("---\n")
        .expect("a record starts with `---`");
    let end = rest.find("\n---\n").expect("front matter ends with `---`");
    let yaml = &rest[..=end];
    let body = rest[end + 5..].to_owned();
    let keys = yaml
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('-'))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_owned()))
        .collect();
    let value: Value = yaml_serde::from_str(yaml).expect("front matter is YAML");
    (keys, value, body)
}

/// A markdown body's `## ` sections: title and the lines under it (blank lines dropped).
pub fn sections(body: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            out.push((title.to_owned(), Vec::new()));
        } else if let Some((_, lines)) = out.last_mut()
            && !line.trim().is_empty()
        {
            lines.push(line.to_owned());
        }
    }
    out
}

/// The lines under the section titled `title`; panics when there is none.
pub fn section<'a>(sections: &'a [(String, Vec<String>)], title: &str) -> &'a [String] {
    sections
        .iter()
        .find(|(t, _)| t == title)
        .map(|(_, lines)| lines.as_slice())
        .unwrap_or_else(|| panic!("no section `## {title}` in {sections:?}"))
}

// --- Remotes, git runs that may fail, record folders (knowledge, hooks, outbox) ----------

impl TestRepo {
    /// A `git ARGS` command in `dir` with the pinned environment and stdin on `/dev/null`,
    /// for runs that may fail or need more environment (e.g. `MAJORDOMUS_BIN` for hooks).
    pub fn git_command_in(&self, dir: &Path, args: &[&str]) -> StdCommand {
        let mut cmd = StdCommand::new("git");
        cmd.args(args).current_dir(dir).stdin(Stdio::null());
        self.pin(&mut cmd);
        cmd
    }

    /// Runs `script` with `sh -c` in `dir` under the pinned environment, with this build
    /// of majordomus first on the `PATH`: how a printed `fix:` is tried.
    pub fn sh_in(&self, dir: &Path, script: &str) -> std::process::Output {
        let mut cmd = StdCommand::new("sh");
        cmd.arg("-c")
            .arg(script)
            .current_dir(dir)
            .stdin(Stdio::null());
        self.pin(&mut cmd);
        let path = format!(
            "{}:{}",
            bin().parent().expect("the binary's directory").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path);
        cmd.output().expect("spawn sh")
    }

    /// `program` in `dir` under the pinned environment (its `HOME` included), with this
    /// build of majordomus first on the `PATH` and stdin on `/dev/null`: how an agent
    /// client runs, whose hooks and MCP server start `majordomus` from the `PATH`.
    pub fn program_in(&self, dir: &Path, program: &Path) -> StdCommand {
        let mut cmd = StdCommand::new(program);
        cmd.current_dir(dir).stdin(Stdio::null());
        self.pin(&mut cmd);
        let path = format!(
            "{}:{}",
            bin().parent().expect("the binary's directory").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path);
        cmd
    }

    /// Makes `origin.git`, a bare copy of the repository beside the work tree, adds it as
    /// `origin`, points `refs/remotes/origin/HEAD` at its default branch and makes `main`
    /// track `origin/main`: from then on `main` is the trunk. Returns the bare repository.
    pub fn add_origin(&self) -> PathBuf {
        self.git_in(&self.base, &["clone", "-q", "--bare", "repo", "origin.git"]);
        let origin = self.base.join("origin.git");
        let url = origin.display().to_string();
        self.git(&["remote", "add", "origin", &url]);
        self.git(&["fetch", "-q", "origin"]);
        self.git(&["remote", "set-head", "origin", "-a"]);
        self.git(&["branch", "-q", "--set-upstream-to", "origin/main", "main"]);
        origin
    }

    /// The record ids (`*.md` file names without `.md`, not `README.md`) in the folder
    /// `rel`, sorted; panics when the folder does not exist (a misspelt folder is a
    /// failure, not "no records": use [`TestRepo::record_ids_if_any`] where it may be
    /// absent).
    #[track_caller]
    pub fn record_ids(&self, rel: &str) -> Vec<String> {
        let path = self.path(rel);
        assert!(
            path.is_dir(),
            "no folder {} to list records in; use record_ids_if_any where it may not exist",
            path.display()
        );
        self.record_ids_if_any(rel)
    }

    /// The record ids in the folder `rel`, as [`TestRepo::record_ids`]; none when the
    /// folder does not exist (for a test that means "it may not have been made yet").
    pub fn record_ids_if_any(&self, rel: &str) -> Vec<String> {
        let entries = match std::fs::read_dir(self.path(rel)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => panic!("list {}: {e}", self.path(rel).display()),
        };
        let mut ids: Vec<String> = entries
            .map(|e| {
                e.expect("directory entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n != "README.md")
            .filter_map(|n| n.strip_suffix(".md").map(str::to_owned))
            .collect();
        ids.sort();
        ids
    }

    /// Sets the modification time of `rel` to 2001-09-09, so that any rewrite shows.
    pub fn backdate(&self, rel: &str) {
        let path = self.path(rel);
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
        file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000))
            .unwrap_or_else(|e| panic!("set the mtime of {}: {e}", path.display()));
    }
}

/// The paths whose bytes or modification time differ between two [`TestRepo::files`]
/// listings, or that only one of them holds; sorted.
pub fn changed_files(
    before: &BTreeMap<String, (Vec<u8>, std::time::SystemTime)>,
    after: &BTreeMap<String, (Vec<u8>, std::time::SystemTime)>,
) -> Vec<String> {
    let mut changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .cloned()
        .collect();
    changed.sort();
    changed.dedup();
    changed
}

/// A knowledge record's text in the plain shape majordomus writes.
pub fn knowledge_record(id: &str, status: &str, refs: &[&str], extra: &str, body: &str) -> String {
    let refs: String = refs.iter().map(|r| format!("  - {r}\n")).collect();
    format!(
        "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: {status}\nstance: observed\ntitle: The ledger is append-only\ndate: 2026-11-30\nprovenance:\n  origin: authored\n  derived_from:\n{refs}{extra}---\n{body}\n"
    )
}

// --- Ledger lines written directly (large or old ledgers) ---------------------------------

/// One ledger line exactly as `Ledger::append` writes it (`data` is JSON with its keys
/// sorted), newline included.
pub fn ledger_line(
    seq: u64,
    ts: &str,
    event: &str,
    session: Option<&str>,
    task: Option<&str>,
    data: &Value,
) -> String {
    let quoted = |v: Option<&str>| v.map_or("null".to_owned(), |s| Value::from(s).to_string());
    format!(
        "{{\"seq\":{seq},\"ts\":{},\"event\":{},\"session\":{},\"task\":{},\"data\":{data}}}\n",
        Value::from(ts),
        Value::from(event),
        quoted(session),
        quoted(task),
    )
}

impl TestRepo {
    /// Appends `text` (whole ledger lines) to the ledger as it is.
    pub fn append_ledger(&self, text: &str) {
        use std::io::Write as _;
        let path = self.path(".ai/local/ledger.jsonl");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create .ai/local");
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("open the ledger");
        file.write_all(text.as_bytes())
            .expect("append to the ledger");
    }

    /// The last `seq` in the ledger (0 when it is empty or not there yet).
    pub fn last_seq(&self) -> u64 {
        // Used to number lines a test writes itself, the first ones included.
        parse_ledger(&self.ledger_text_if_any().unwrap_or_default())
            .iter()
            .filter_map(|l| l["seq"].as_u64())
            .max()
            .unwrap_or(0)
    }
}

// --- Printed `fix:` and `next:` lines, run as printed ---------------------------------------

/// The commands of every `fix: ` line of `text` (an error's, a finding's), in order; the
/// indentation of a report is not part of the command.
pub fn fix_lines(text: &str) -> Vec<String> {
    printed_lines(text, "fix: ")
}

/// The commands of every `next: ` line of `text`, in order.
pub fn next_lines(text: &str) -> Vec<String> {
    printed_lines(text, "next: ")
}

fn printed_lines(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix(prefix))
        .map(str::to_owned)
        .collect()
}

impl TestRepo {
    /// Runs a printed `fix:` or `next:` line exactly as printed (`sh -c`, this build first
    /// on the `PATH`, no editor to fall back on) in the work tree; panics unless it succeeds.
    #[track_caller]
    pub fn run_printed(&self, line: &str) -> String {
        let out = self.sh_printed(line);
        assert!(
            out.status.success(),
            "the printed `{line}` failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs a printed line as [`TestRepo::run_printed`] does, whatever comes of it.
    pub fn sh_printed(&self, line: &str) -> std::process::Output {
        self.sh_printed_in(&self.root, line)
    }

    /// [`TestRepo::sh_printed`] in `dir` (a clone or a worktree beside the repository).
    pub fn sh_printed_in(&self, dir: &Path, line: &str) -> std::process::Output {
        let mut cmd = StdCommand::new("sh");
        cmd.arg("-c")
            .arg(line)
            .current_dir(dir)
            .stdin(Stdio::null());
        self.pin(&mut cmd);
        let path = format!(
            "{}:{}",
            bin().parent().expect("the binary's directory").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // An editor would wait for a person: a printed command must not need one.
        cmd.env("PATH", path)
            .env("GIT_EDITOR", "false")
            .env("EDITOR", "false")
            .env("VISUAL", "false")
            .env("MAJORDOMUS_BIN", bin());
        cmd.output().expect("spawn sh")
    }
}

/// Asserts that `git ARGS` in `dir` succeeded; its stdout, trimmed.
fn git_succeeded(dir: &Path, args: &[&str], output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "git {} failed in {}:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A tool a test needs is missing. Under `CI=true` that fails the test (`.ci/run` installs
/// every tool the tests need, or stops with an error); elsewhere the test says SKIPPED on
/// stderr, past the harness's capture, and the caller returns without running.
#[track_caller]
pub fn missing_tool(what: &str, install: &str) {
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "{what} is missing under CI=true ({install}; .ci/run installs it)"
    );
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!(
            "\n*** SKIPPED: {what} is not installed ({install}); this test did not run ***\n"
        ),
    );
}

/// `from` copied to `to`, files, directories and links.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory of the copy");
    for entry in std::fs::read_dir(from).expect("list a directory to copy") {
        let entry = entry.expect("directory entry");
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            copy_dir(&src, &dst);
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&src).expect("read a link");
            std::os::unix::fs::symlink(target, &dst).expect("copy a link");
        } else {
            std::fs::copy(&src, &dst).expect("copy a file");
        }
    }
}

/// Whether two references (`kind:id`) name one claim (SPEC §8): the same, or a decision and
/// the knowledge record derived from it (they share their id).
pub fn same_claim(a: &str, b: &str) -> bool {
    let claim = |r: &str| match r.split_once(':') {
        Some(("decision" | "knowledge", id)) => id.to_owned(),
        _ => r.to_owned(),
    };
    a == b || claim(a) == claim(b)
}
