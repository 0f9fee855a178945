//! Hooks (SPEC §8): `hooks install|uninstall` in every hooks layout (plain, `core.hooksPath`,
//! husky, lefthook, pre-commit, an earlier install), the git hooks run by a real git,
//! stepping aside, and the provider hooks that never block their provider.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use majordomus::briefing::PRACTICE;
use majordomus::model::inject::LEGEND;
use serde_json::{Value, json};

use crate::common::{TestRepo, bin, changed_files};

const HOOKS: [&str; 3] = ["post-commit", "pre-push", "post-rewrite"];

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

/// Every file under `dir` (hidden ones too), with its bytes and permission bits.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, (Vec<u8>, u32)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("directory entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                walk(&path, root, out);
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned();
            let bytes = if meta.file_type().is_symlink() {
                std::fs::read_link(&path)
                    .expect("link")
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                std::fs::read(&path).expect("read file")
            };
            out.insert(rel, (bytes, meta.permissions().mode() & 0o7777));
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[track_caller]
fn assert_same_tree(
    before: &BTreeMap<String, (Vec<u8>, u32)>,
    after: &BTreeMap<String, (Vec<u8>, u32)>,
) {
    for (path, (bytes, mode)) in before {
        let Some((now, now_mode)) = after.get(path) else {
            panic!("{path} is gone");
        };
        assert_eq!(
            String::from_utf8_lossy(now),
            String::from_utf8_lossy(bytes),
            "{path}: content"
        );
        assert_eq!(now, bytes, "{path}: bytes");
        assert_eq!(format!("{now_mode:o}"), format!("{mode:o}"), "{path}: mode");
    }
    let extra: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert!(extra.is_empty(), "left behind: {extra:?}");
}

/// Writes `text` to `path` with exactly these permission bits.
fn write_file(path: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("create the directory");
    std::fs::write(path, text).expect("write the file");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Where the scenario's hooks write what they saw; `fail` makes the team's pre-push fail.
fn logs(repo: &TestRepo) -> PathBuf {
    let dir = repo.base().join("logs");
    std::fs::create_dir_all(&dir).expect("create the log directory");
    dir
}

/// The team's pre-push check, after a first part that records the name it runs under in
/// `their-name`: it keeps its stdin in `their-stdin` and exits 7 while `fail` exists.
fn their_check(logs: &Path) -> String {
    let l = logs.display();
    format!(
        "cat > '{l}/their-stdin'\nif [ -e '{l}/fail' ]; then echo 'their pre-push: failing' >&2; exit 7; fi\n"
    )
}

/// A plain pre-push hook: records its own name (`basename "$0"`), then [`their_check`].
fn their_pre_push(logs: &Path) -> String {
    format!(
        "basename \"$0\" > '{}/their-name'\n{}",
        logs.display(),
        their_check(logs)
    )
}

/// `MAJORDOMUS_BIN` for the scenarios: keeps the stdin each hook got in `our-stdin-<hook>`,
/// then runs the majordomus under test with it.
fn recording_bin(logs: &Path) -> PathBuf {
    let path = logs.join("majordomus");
    let l = logs.display();
    write_file(
        &path,
        &format!(
            "#!/bin/sh\ncat > '{l}/our-stdin-'\"$2\"\nexec '{}' \"$@\" < '{l}/our-stdin-'\"$2\"\n",
            bin().display()
        ),
        0o755,
    );
    path
}

/// Runs `git ARGS` at the root with the recording `MAJORDOMUS_BIN` and `extra` variables.
fn git_recorded(repo: &TestRepo, args: &[&str], extra: &[(&str, &Path)]) -> Output {
    let mut cmd = repo.git_command_in(repo.root(), args);
    cmd.env("MAJORDOMUS_BIN", recording_bin(&logs(repo)))
        .env("GIT_EDITOR", "true");
    for (key, value) in extra {
        cmd.env(key, value);
    }
    cmd.output().expect("spawn git")
}

fn read_log(logs: &Path, name: &str) -> String {
    std::fs::read_to_string(logs.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What every layout must keep: with the hooks installed, a commit is recorded; a failing
/// pre-push still refuses the push with its own exit status (and nothing reaches origin),
/// a passing one lets it through; the existing hook runs under its own name and both it
/// and majordomus get git's ref lines on stdin. `git_runs` is the pre-push file git
/// executes; `extra` the environment a manager's stand-in needs.
fn assert_the_push_gate_holds(
    repo: &TestRepo,
    origin: &Path,
    git_runs: &Path,
    extra: &[(&str, &Path)],
) {
    let logs = logs(repo);
    let episode = repo.start_episode();
    repo.write("notes.txt", "hello\n");
    repo.git(&["add", "notes.txt"]);
    assert_git_ok(&git_recorded(
        repo,
        &["commit", "-q", "-m", "Add notes"],
        extra,
    ));
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1, "the commit is recorded");
    assert_eq!(recorded[0]["session"], episode.as_str());
    assert_eq!(recorded[0]["data"]["subject"], "Add notes");

    let before = repo.git_in(origin, &["rev-parse", "main"]);
    let head = repo.head();
    let refs = format!("refs/heads/main {head} refs/heads/main {before}\n");
    std::fs::write(logs.join("fail"), "").expect("make the team's check fail");
    let output = git_recorded(repo, &["push", "-q", "origin", "main"], extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "a failing pre-push let the push through:\n{stderr}"
    );
    assert!(stderr.contains("their pre-push: failing"), "{stderr}");
    assert_eq!(
        repo.git_in(origin, &["rev-parse", "main"]),
        before,
        "nothing reached origin"
    );
    assert_eq!(
        read_log(&logs, "their-name"),
        "pre-push\n",
        "the hook runs under its own name"
    );
    assert_eq!(
        read_log(&logs, "their-stdin"),
        refs,
        "the existing hook got git's ref lines"
    );
    assert_eq!(
        read_log(&logs, "our-stdin-pre-push"),
        refs,
        "majordomus got git's ref lines"
    );

    // The hook's own exit status is what the file git runs exits with.
    let url = origin.display().to_string();
    let mut hook = std::process::Command::new(git_runs);
    hook.args(["origin", &url])
        .current_dir(repo.root())
        .env("MAJORDOMUS_BIN", recording_bin(&logs))
        .env("PATH", std::env::var_os("PATH").expect("PATH"))
        .env("TMPDIR", repo.tmpdir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in extra {
        hook.env(key, value);
    }
    let mut child = hook.spawn().expect("run the hook as git does");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(refs.as_bytes())
        .expect("write the ref lines");
    let ran = child.wait_with_output().expect("wait for the hook");
    assert_eq!(
        ran.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );

    std::fs::remove_file(logs.join("fail")).expect("make the team's check pass");
    let output = git_recorded(repo, &["push", "-q", "origin", "main"], extra);
    assert_git_ok(&output);
    assert_eq!(
        repo.git_in(origin, &["rev-parse", "main"]),
        head,
        "a passing pre-push pushes"
    );
    assert_eq!(read_log(&logs, "our-stdin-pre-push"), refs);
    let left: Vec<_> = std::fs::read_dir(repo.tmpdir())
        .expect("list TMPDIR")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
    repo.run(&["session", "close"]).success();
}

/// Install (checking its report), the push gate, uninstall: `watched` byte for byte as before.
fn install_gate_uninstall(
    repo: &TestRepo,
    watched: &Path,
    git_runs: &Path,
    installed: &[(&str, &str)],
    extra: &[(&str, &Path)],
) -> Value {
    let origin = repo.add_origin();
    let before = tree(watched);
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), pairs(installed), "{report:#}");
    assert_the_push_gate_holds(repo, &origin, git_runs, extra);
    let again = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&again), all("unchanged"), "{again:#}");
    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&before, &tree(watched));
    report
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(h, a)| ((*h).to_owned(), (*a).to_owned()))
        .collect()
}

/// The binary under test as the kernel names it: what `hooks install` starts from git's own
/// hooks directory.
fn linked_binary() -> PathBuf {
    bin().canonicalize().expect("canonical binary path")
}

/// The hook `hooks install` writes into git's own hooks directory: a `#!` line that starts
/// the binary directly (no shell in between), the marker line, what it is.
fn direct_script(name: &str) -> String {
    format!(
        "#!{} hook-script\n# majordomus-hook: {name}\n# Written by `majordomus hooks install` where no {name} hook was: git starts majordomus directly\n# (the line above; no shell in between). `majordomus hooks uninstall` deletes it; rerun install after moving majordomus.\n",
        linked_binary().display()
    )
}

#[test]
fn install_writes_the_three_hooks_that_start_the_binary_and_is_idempotent() {
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    let run = repo.run(&["hooks", "install"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "hooks directory: {}\n  post-commit    installed  .git/hooks/post-commit (starts {b})\n  pre-push       installed  .git/hooks/pre-push (starts {b})\n  post-rewrite   installed  .git/hooks/post-rewrite (starts {b})\n",
            dir.display(),
            b = linked_binary().display()
        )
    );
    for name in HOOKS {
        let path = dir.join(name);
        // git's own hooks directory is never shared or committed: no shell in front of
        // majordomus, the kernel starts the binary named on the `#!` line.
        assert_eq!(
            std::fs::read_to_string(&path).expect("installed hook"),
            direct_script(name),
            "{name}"
        );
        assert!(is_executable(&path), "{name} is executable");
        repo.backdate(&format!(".git/hooks/{name}"));
    }
    let mtimes = || -> Vec<_> {
        HOOKS
            .iter()
            .map(|n| {
                std::fs::metadata(dir.join(n))
                    .and_then(|m| m.modified())
                    .expect("mtime")
            })
            .collect()
    };
    let before = mtimes();
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("unchanged"));
    assert_eq!(before, mtimes(), "an idempotent install rewrites nothing");
    for name in ["post-checkout", "post-merge"] {
        assert!(!dir.join(name).exists(), "{name} is no longer installed");
    }

    // The script an earlier version wrote, one that lost its executable bit, and one
    // naming a binary that is gone are all rewritten to start this one.
    write_file(&dir.join("post-commit"), &shipped("post-commit"), 0o755);
    write_file(&dir.join("pre-push"), &direct_script("pre-push"), 0o644);
    write_file(
        &dir.join("post-rewrite"),
        &direct_script("post-rewrite")
            .replace(&linked_binary().display().to_string(), "/gone/majordomus"),
        0o755,
    );
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let messages: Vec<String> = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["rule"] == "majordomus.hooks-reached")
        .map(|f| {
            format!(
                "{} | {}",
                f["message"].as_str().unwrap_or(""),
                f["fix"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        messages,
        vec![
            "pre-push not reached: .git/hooks/pre-push is not executable, so git does not run it | majordomus hooks install".to_owned(),
            "post-rewrite not reached: .git/hooks/post-rewrite starts /gone/majordomus, which is gone, so git cannot run it (a push fails with `cannot run .git/hooks/post-rewrite`) | majordomus hooks install".to_owned(),
        ]
    );
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("updated"));
    for name in HOOKS {
        assert_eq!(
            repo.read(&format!(".git/hooks/{name}")),
            direct_script(name)
        );
        assert!(is_executable(&dir.join(name)), "{name} is executable");
    }
    let report = repo
        .run(&["--format", "json", "hooks", "uninstall"])
        .success()
        .json();
    assert_eq!(actions(&report), all("removed"));
    let left: Vec<_> = HOOKS.iter().filter(|n| dir.join(n).exists()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Where git's own hooks directory is not the one git uses (`core.hooksPath`, a manager's
/// directory), the hook of our own is the shipped script: such a directory may be shared
/// or committed, and a link names one machine's binary.
#[test]
fn a_core_hooks_path_gets_the_shipped_scripts() {
    let repo = TestRepo::initialised();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let dir = repo.path(".githooks");
    repo.run(&["hooks", "install"]).success();
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
        repo.backdate(&format!(".githooks/{name}"));
    }
    let mtimes = || -> Vec<_> {
        HOOKS
            .iter()
            .map(|n| {
                std::fs::metadata(dir.join(n))
                    .and_then(|m| m.modified())
                    .expect("mtime")
            })
            .collect()
    };
    let before = mtimes();
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("unchanged"));
    assert_eq!(before, mtimes(), "an idempotent install rewrites nothing");
}

#[test]
fn install_needs_an_initialised_repository_and_uninstall_does_not() {
    let repo = TestRepo::new();
    repo.run(&["--format", "json", "hooks", "install"])
        .json_error(3, "repository.initialised");
    assert!(!repo.path(".git/hooks/post-commit").exists());
    let report = repo
        .run(&["--format", "json", "hooks", "uninstall"])
        .success()
        .json();
    assert_eq!(actions(&report), all("absent"));
}

#[test]
fn plain_git_hooks_keep_an_existing_hook_under_its_own_name() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let dir = repo.path(".git/hooks");
    write_file(
        &dir.join("pre-push"),
        &format!("#!/bin/sh\n{}", their_pre_push(&logs)),
        0o755,
    );
    write_file(
        &dir.join("post-commit"),
        &format!(
            "#!/bin/sh\nbasename \"$0\" >> '{}/their-post-commit'\nexit 3\n",
            logs.display()
        ),
        0o755,
    );
    let report = install_gate_uninstall(
        &repo,
        &dir,
        &dir.join("pre-push"),
        &[
            ("post-commit", "chained"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ],
        &[],
    );
    assert_eq!(report["hooks"][1]["path"], ".git/hooks/pre-push");
    assert_eq!(report["notes"], json!([]));
    // The existing post-commit ran under its own name, and its failure stopped nothing.
    assert_eq!(read_log(&logs, "their-post-commit"), "post-commit\n");
    assert!(!dir.join("pre-push.pre-majordomus").exists());
}

#[test]
fn a_relative_core_hooks_path_keeps_an_existing_hook() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let dir = repo.path(".githooks");
    // bash, strict mode, owner-only permissions: all kept.
    write_file(
        &dir.join("pre-push"),
        &format!(
            "#!/usr/bin/env bash\nset -euo pipefail\n{}",
            their_pre_push(&logs)
        ),
        0o700,
    );
    write_file(&dir.join("README"), "Team hooks.\n", 0o644);
    let report = install_gate_uninstall(
        &repo,
        &dir,
        &dir.join("pre-push"),
        &[
            ("post-commit", "installed"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ],
        &[],
    );
    assert_eq!(report["dir"], dir.display().to_string().as_str());
    assert_eq!(report["hooks"][1]["path"], ".githooks/pre-push");
    assert!(!repo.path(".git/hooks/pre-push").exists());
}

#[test]
fn an_absolute_core_hooks_path_keeps_an_existing_hook() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let dir = repo.base().join("shared-hooks");
    repo.git(&["config", "core.hooksPath", &dir.display().to_string()]);
    // No newline at the end of the file: it comes back exactly so.
    write_file(
        &dir.join("pre-push"),
        format!("#!/bin/sh\n{}exit 0", their_pre_push(&logs)).as_str(),
        0o750,
    );
    let report = install_gate_uninstall(
        &repo,
        &dir,
        &dir.join("pre-push"),
        &[
            ("post-commit", "installed"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ],
        &[],
    );
    assert_eq!(
        report["hooks"][1]["path"],
        dir.join("pre-push").display().to_string().as_str()
    );
}

/// husky 9.1.7's runner `.husky/_/h`, as `npx husky init` writes it (mode 644).
const HUSKY_H: &str = r#"#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

if [ -f "$HOME/.huskyrc" ]; then
	echo "husky - '~/.huskyrc' is DEPRECATED, please move your code to ~/.config/husky/init.sh"
fi
i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
"#;

/// husky 9.1.7's shim for every hook (mode 755, no newline at the end).
const HUSKY_SHIM: &str = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"";

/// husky 9.1.7's deprecation stub `.husky/_/husky.sh` (mode 644).
const HUSKY_SH: &str = "echo \"husky - DEPRECATED\n\nPlease remove the following two lines from $0:\n\n#!/usr/bin/env sh\n. \\\"\\$(dirname -- \\\"\\$0\\\")/_/husky.sh\\\"\n\nThey WILL FAIL in v10.0.0\n\"";

/// The hooks husky 9.1.7 writes a shim for.
const HUSKY_HOOKS: [&str; 14] = [
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-rebase",
    "post-rewrite",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-auto-gc",
];

/// The layout `npm install -D husky && npx husky init` (9.1.7) leaves, built by hand, with
/// the team's `.husky/pre-push` (no `#!` line, mode 644, as husky users write them)
/// committed.
fn husky_layout(repo: &TestRepo) {
    let generated = repo.path(".husky/_");
    write_file(&generated.join("h"), HUSKY_H, 0o644);
    write_file(&generated.join(".gitignore"), "*", 0o644);
    write_file(&generated.join("husky.sh"), HUSKY_SH, 0o644);
    for hook in HUSKY_HOOKS {
        write_file(&generated.join(hook), HUSKY_SHIM, 0o755);
    }
    write_file(&repo.path(".husky/pre-commit"), "true\n", 0o644);
    write_file(
        &repo.path(".husky/pre-push"),
        &their_pre_push(&logs(repo)),
        0o644,
    );
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    repo.git(&["add", ".husky"]);
    repo.git(&["commit", "-q", "-m", "Add husky"]);
}

#[test]
fn husky_v9_runs_the_team_hooks_and_majordomus_from_the_files_it_calls() {
    let repo = TestRepo::initialised();
    husky_layout(&repo);
    let report = install_gate_uninstall(
        &repo,
        &repo.path(".husky"),
        &repo.path(".husky/_/pre-push"),
        &[
            ("post-commit", "installed"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ],
        &[],
    );
    let paths: Vec<&str> = report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| h["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        [
            ".husky/post-commit",
            ".husky/pre-push",
            ".husky/post-rewrite"
        ]
    );
    assert!(
        report["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .all(|h| h["manager"] == "husky")
    );
    assert!(
        report["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("husky runs the hook files in .husky/")),
        "{report:#}"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the team's files are as committed"
    );
}

#[test]
fn husky_v9_without_a_shim_is_refused_with_the_command_that_regenerates_it() {
    let repo = TestRepo::initialised();
    husky_layout(&repo);
    std::fs::remove_file(repo.path(".husky/_/post-rewrite")).expect("remove a shim");
    let before = tree(&repo.path(".husky"));
    let error = repo
        .run(&["--format", "json", "hooks", "install"])
        .json_error(3, "hooks.manager");
    assert_eq!(
        error["message"],
        "hook post-rewrite: .husky/_/post-rewrite is not husky's shim in husky's generated directory, so majordomus cannot call itself from it without putting that hook at risk"
    );
    assert_eq!(
        error["fix"],
        "npx husky (rewrites .husky/_), then majordomus hooks install"
    );
    assert_same_tree(&before, &tree(&repo.path(".husky")));
}

#[test]
fn husky_v9_under_an_earlier_install_gets_its_hooks_back() {
    // What majordomus 0.1 did to a husky repository: husky's shims renamed aside, so
    // husky's runner looked for `.husky/pre-push.pre-majordomus` and the team's hooks
    // stopped running.
    let repo = TestRepo::initialised();
    husky_layout(&repo);
    let generated = repo.path(".husky/_");
    let pristine = tree(&repo.path(".husky"));
    for name in ["post-commit", "pre-push", "post-checkout", "post-merge"] {
        std::fs::rename(
            generated.join(name),
            generated.join(format!("{name}.pre-majordomus")),
        )
        .expect("rename aside");
        write_file(&generated.join(name), &old_script(name), 0o755);
    }
    let origin = repo.add_origin();
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "upgraded"),
            ("pre-push", "upgraded"),
            ("post-rewrite", "installed"),
            ("post-checkout", "restored"),
            ("post-merge", "restored"),
        ]),
        "{report:#}"
    );
    for name in ["post-commit", "pre-push", "post-checkout", "post-merge"] {
        assert_eq!(
            repo.read(&format!(".husky/_/{name}")),
            HUSKY_SHIM,
            "{name}: husky's shim is back"
        );
    }
    assert_the_push_gate_holds(&repo, &origin, &repo.path(".husky/_/pre-push"), &[]);
    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&pristine, &tree(&repo.path(".husky")));
}

/// lefthook's generated hook (lefthook 2.x, `lefthook install`), its lookup trimmed to
/// `LEFTHOOK_BIN` and `lefthook` on PATH.
const LEFTHOOK_PRE_PUSH: &str = r#"#!/bin/sh

if [ "$LEFTHOOK_VERBOSE" = "1" -o "$LEFTHOOK_VERBOSE" = "true" ]; then
  set -x
fi

if [ "$LEFTHOOK" = "0" ]; then
  exit 0
fi

call_lefthook()
{
  if test -n "$LEFTHOOK_BIN"
  then
    "$LEFTHOOK_BIN" "$@"
  elif lefthook -h >/dev/null 2>&1
  then
    lefthook "$@"
  else
    echo "Can't find lefthook in PATH"
  fi
}

call_lefthook run "pre-push" "$@"
"#;

#[test]
fn a_lefthook_dispatcher_keeps_dispatching() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let dir = repo.path(".git/hooks");
    write_file(&dir.join("pre-push"), LEFTHOOK_PRE_PUSH, 0o755);
    // A stand-in for lefthook: `lefthook run <hook> <args>` runs the team's check.
    let lefthook = logs.join("lefthook");
    write_file(
        &lefthook,
        &format!(
            "#!/bin/sh\n[ \"$1\" = run ] || exit 64\nprintf '%s\\n' \"$2\" > '{}/their-name'\n{}",
            logs.display(),
            their_check(&logs)
        ),
        0o755,
    );
    let report = install_gate_uninstall(
        &repo,
        &dir,
        &dir.join("pre-push"),
        &[
            ("post-commit", "installed"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ],
        &[("LEFTHOOK_BIN", &lefthook)],
    );
    assert_eq!(report["hooks"][1]["manager"], "lefthook");
    assert!(
        report["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("lefthook rewrites its hook scripts")),
        "{report:#}"
    );
}

/// The script `pre-commit install --hook-type pre-push` generates (pre-commit 3.x).
fn pre_commit_script(python: &Path) -> String {
    format!(
        r#"#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
# ID: 138fd403232d2ddd5efb44317e38bf03

# start templated
INSTALL_PYTHON={}
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-push)
# end templated

HERE="$(cd "$(dirname "$0")" && pwd)"
ARGS+=(--hook-dir "$HERE" -- "$@")

if [ -x "$INSTALL_PYTHON" ]; then
    exec "$INSTALL_PYTHON" -mpre_commit "${{ARGS[@]}}"
elif command -v pre-commit > /dev/null; then
    exec pre-commit "${{ARGS[@]}}"
else
    echo '`pre-commit` not found.  Did you forget to activate your virtualenv?' 1>&2
    exit 1
fi
"#,
        python.display()
    )
}

/// A stand-in for pre-commit's Python (`-mpre_commit hook-impl`), as pre-commit 3.x
/// dispatches: `<hook-dir>/<hook-type>.legacy` first when it is executable, with git's
/// arguments and stdin, a failure of it failing the hook; then the team's check.
fn pre_commit_stand_in(logs: &Path) -> PathBuf {
    let python = logs.join("python");
    let l = logs.display();
    write_file(
        &python,
        &format!(
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  case $1 in\n    --hook-type=*) type=${{1#--hook-type=}};;\n    --hook-dir) shift; dir=$1;;\n    --) shift; break;;\n  esac\n  shift\ndone\nprintf '%s\\n' \"$type\" > '{l}/their-name'\ncat > '{l}/dispatched-stdin'\nif [ -x \"$dir/$type.legacy\" ]; then\n  \"$dir/$type.legacy\" \"$@\" < '{l}/dispatched-stdin' || exit $?\nfi\nexec < '{l}/dispatched-stdin'\n{}",
            their_check(logs)
        ),
        0o755,
    );
    python
}

/// Always on (no network, no PyPI): pre-commit's generated script in front, its Python a
/// stand-in that dispatches as pre-commit does. majordomus goes into `pre-push.legacy`,
/// which the dispatcher runs: one run per hook, the team's check still deciding; uninstall
/// leaves the hooks as they were, and the dispatcher still dispatches, without us.
#[test]
fn a_pre_commit_dispatcher_keeps_dispatching() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let origin = repo.add_origin();
    let dir = repo.path(".git/hooks");
    let python = pre_commit_stand_in(&logs);
    write_file(&dir.join("pre-push"), &pre_commit_script(&python), 0o755);
    let pristine = tree(&dir);
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "installed"),
            ("pre-push", "installed"),
            ("post-rewrite", "installed"),
        ]),
        "{report:#}"
    );
    assert_eq!(report["hooks"][1]["manager"], "pre-commit", "{report:#}");
    assert_eq!(
        report["hooks"][1]["path"], ".git/hooks/pre-push.legacy",
        "{report:#}"
    );
    assert_eq!(
        repo.read(".git/hooks/pre-push"),
        pre_commit_script(&python),
        "the dispatcher is left as it is"
    );
    assert_pre_commit_runs_us_once(&repo, &origin, &logs);
    assert_eq!(read_log(&logs, "their-name"), "pre-push\n");
    let again = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&again), all("unchanged"), "{again:#}");
    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&pristine, &tree(&dir));

    // Uninstalled: the dispatcher still runs the team's check, which still decides, with
    // git's ref lines; majordomus no longer runs (a secret goes through).
    std::fs::remove_file(logs.join("their-name")).expect("clear the log");
    repo.write(".ai/repo/sessions/leak.md", &leaky_session_record());
    repo.git(&["add", ".ai/repo/sessions/leak.md"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Leak"]));
    std::fs::write(logs.join("fail"), "").expect("make the team's check fail");
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the team's check was bypassed");
    assert!(stderr.contains("their pre-push: failing"), "{stderr}");
    assert_eq!(read_log(&logs, "their-name"), "pre-push\n");
    assert!(
        read_log(&logs, "their-stdin").starts_with(&format!("refs/heads/main {} ", repo.head())),
        "the team's check got git's ref lines"
    );
    std::fs::remove_file(logs.join("fail")).expect("make the team's check pass");
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("majordomus"),
        "majordomus ran after uninstall"
    );
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), repo.head());
}

/// The script majordomus 0.1 installed for `name` (it renamed an existing hook aside).
fn old_script(name: &str) -> String {
    format!(
        "#!/bin/sh\n# majordomus-hook: {name}\n# Installed by `majordomus hooks install`; `majordomus hooks uninstall` restores what was here.\n# A hook that was here before is kept beside this one as {name}.pre-majordomus and runs first.\nhookdir=$(dirname \"$0\")\nif [ -x \"$hookdir/{name}.pre-majordomus\" ]; then\n  \"$hookdir/{name}.pre-majordomus\" \"$@\" || exit $?\nfi\nbin=${{MAJORDOMUS_BIN:-majordomus}}\ncommand -v \"$bin\" >/dev/null 2>&1 || exit 0\nexec \"$bin\" hook {name} \"$@\"\n"
    )
}

#[test]
fn an_earlier_install_upgrades_and_uninstall_still_restores_it() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let dir = repo.path(".git/hooks");
    write_file(
        &dir.join("pre-push"),
        &format!("#!/bin/sh\n{}", their_pre_push(&logs)),
        0o755,
    );
    write_file(
        &dir.join("post-checkout"),
        "#!/bin/sh\necho checked out\n",
        0o700,
    );
    let pristine = tree(&dir);
    // majordomus 0.1's install: theirs renamed aside, ours in its place, four hooks.
    for name in ["pre-push", "post-checkout"] {
        std::fs::rename(dir.join(name), dir.join(format!("{name}.pre-majordomus")))
            .expect("rename aside");
    }
    for name in ["post-commit", "pre-push", "post-checkout", "post-merge"] {
        write_file(&dir.join(name), &old_script(name), 0o755);
    }

    let run = repo.run(&["hooks", "install"]).success();
    assert_eq!(
        run.stdout(),
        format!(
            "hooks directory: {}\n  post-commit    updated    .git/hooks/post-commit (starts {b})\n  pre-push       upgraded   .git/hooks/pre-push\n  post-rewrite   installed  .git/hooks/post-rewrite (starts {b})\n  post-checkout  restored   .git/hooks/post-checkout (no longer used by majordomus)\n  post-merge     removed    .git/hooks/post-merge (no longer used by majordomus)\n",
            dir.display(),
            b = linked_binary().display()
        )
    );
    assert_eq!(
        tree(&dir)["post-checkout"],
        pristine["post-checkout"],
        "the hook we chained at post-checkout is back as it was"
    );
    assert!(!dir.join("post-merge").exists());
    assert!(!dir.join("pre-push.pre-majordomus").exists());
    assert_eq!(
        repo.read(".git/hooks/post-commit"),
        direct_script("post-commit")
    );
    let origin = repo.add_origin();
    assert_the_push_gate_holds(&repo, &origin, &dir.join("pre-push"), &[]);
    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&pristine, &tree(&dir));

    // Uninstalling the earlier install directly restores it too.
    for name in ["pre-push", "post-checkout"] {
        std::fs::rename(dir.join(name), dir.join(format!("{name}.pre-majordomus")))
            .expect("rename aside");
    }
    for name in ["post-commit", "pre-push", "post-checkout", "post-merge"] {
        write_file(&dir.join(name), &old_script(name), 0o755);
    }
    let report = repo
        .run(&["--format", "json", "hooks", "uninstall"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "removed"),
            ("pre-push", "restored"),
            ("post-rewrite", "absent"),
            ("post-checkout", "restored"),
            ("post-merge", "removed"),
        ])
    );
    assert_same_tree(&pristine, &tree(&dir));
}

#[test]
fn a_hook_majordomus_cannot_edit_is_refused_with_the_line_to_add() {
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    let python = "#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n";
    write_file(&dir.join("pre-push"), python, 0o755);
    let before = tree(&dir);
    let error = repo
        .run(&["--format", "json", "hooks", "install"])
        .json_error(3, "hooks.manager");
    assert_eq!(
        error["message"],
        "hook pre-push: .git/hooks/pre-push is not a shell script (it runs /usr/bin/env python3), so majordomus cannot call itself from it without putting that hook at risk"
    );
    assert!(
        error["fix"]
            .as_str()
            .is_some_and(|f| f.starts_with("add this line to .git/hooks/pre-push as its first command, then rerun majordomus hooks install: majordomus hook pre-push \"$@\"")),
        "{error}"
    );
    assert_same_tree(&before, &tree(&dir));
    let run = repo.run(&["hooks", "install"]);
    run.assert_human_error(3, "is not a shell script");
    assert!(
        run.stderr().contains("\nfix: add this line to .git/hooks/pre-push as its first command, then rerun majordomus hooks install: majordomus hook pre-push \"$@\""),
        "{run}"
    );

    // Wired by hand: install leaves it alone and installs the rest.
    write_file(
        &dir.join("pre-push"),
        "#!/usr/bin/env python3\nimport subprocess, sys\nsys.exit(subprocess.run([\"majordomus\", \"hook\", \"pre-push\", *sys.argv[1:]]).returncode)\n",
        0o755,
    );
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "installed"),
            ("pre-push", "wired"),
            ("post-rewrite", "installed"),
        ])
    );

    // A symbolic link may be shared by several hooks: refused too.
    let repo = TestRepo::initialised();
    let dir = repo.path(".git/hooks");
    write_file(&repo.path("tools/hook"), "#!/bin/sh\nexit 0\n", 0o755);
    std::os::unix::fs::symlink(repo.path("tools/hook"), dir.join("pre-push")).expect("symlink");
    let error = repo
        .run(&["--format", "json", "hooks", "install"])
        .json_error(3, "hooks.manager");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("is a symbolic link")),
        "{error}"
    );
    assert!(
        !dir.join("post-commit").exists(),
        "a refused install touches nothing"
    );
    assert!(
        error["fix"]
            .as_str()
            .is_some_and(|f| f.contains("where it runs the pre-push hook")),
        "{error}"
    );
    // Wired in the shared file where it runs pre-push: installed, the link left alone.
    write_file(
        &repo.path("tools/hook"),
        "#!/bin/sh\ncase ${0##*/} in pre-push) majordomus hook pre-push \"$@\" || exit $? ;; esac\n",
        0o755,
    );
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report)[1],
        ("pre-push".to_owned(), "wired".to_owned())
    );
    assert!(
        std::fs::symlink_metadata(dir.join("pre-push"))
            .expect("the link")
            .file_type()
            .is_symlink()
    );
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
    assert!(repo.ledger_events_if_any("commit.recorded").is_empty());

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
    // A verified record: what it cites must resolve (a candidate's dangling file is
    // advisory, `knowledge::a_candidate_citing_a_file_that_is_gone_blocks_nothing`).
    let file = format!(".ai/repo/knowledge/curated/{id}.md");
    repo.write(
        &file,
        &format!(
            "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: verified\nstance: observed\ntitle: A claim\ndate: 2026-11-30\nprovenance:\n  origin: authored\n  derived_from:\n  - file:src/gone.rs\n---\nA claim.\n"
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
fn post_rewrite_records_an_amend_and_the_chained_hook_still_gets_the_pairs() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    let dir = repo.path(".git/hooks");
    write_file(
        &dir.join("post-rewrite"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" > '{l}/their-args'\ncat > '{l}/their-stdin'\n",
            l = logs.display()
        ),
        0o755,
    );
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report)[2],
        ("post-rewrite".to_owned(), "chained".to_owned())
    );

    // No episode open: the pair is recorded all the same, without one.
    let old = repo.head();
    assert_git_ok(&git_recorded(
        &repo,
        &["commit", "-q", "--amend", "-m", "Initial commit, amended"],
        &[],
    ));
    let new = repo.head();
    assert_ne!(old, new);
    let pair = format!("{old} {new}\n");
    assert_eq!(read_log(&logs, "their-args"), "amend\n");
    assert_eq!(
        read_log(&logs, "their-stdin"),
        pair,
        "the chained hook got git's pairs"
    );
    assert_eq!(read_log(&logs, "our-stdin-post-rewrite"), pair);
    let rewritten = repo.ledger_events("commit.rewritten");
    assert_eq!(rewritten.len(), 1);
    assert_eq!(rewritten[0]["session"], Value::Null);
    assert_eq!(
        rewritten[0]["data"],
        json!({"by": "amend", "pairs": [{"old": old, "new": new}]})
    );
    assert!(
        repo.ledger_events("commit.recorded").is_empty(),
        "no episode, no commit.recorded"
    );

    // With an episode open it is stamped with it; by hand, --format json says what it did.
    let episode = repo.start_episode();
    let json = repo
        .run_with_stdin(
            &["--format", "json", "hook", "post-rewrite", "rebase"],
            &format!("{new} {old}\nnot a pair\n"),
        )
        .success()
        .json();
    assert_eq!(
        json,
        json!({"did": "recorded", "by": "rebase", "pairs": [{"old": new, "new": old}], "session": episode})
    );
    let json = repo
        .run_with_stdin(&["--format", "json", "hook", "post-rewrite", "amend"], "")
        .success()
        .json();
    assert_eq!(json, json!({"did": "nothing-rewritten"}));
    assert_eq!(repo.ledger_events("commit.rewritten").len(), 2);
    let run = repo
        .run_with_stdin(&["hook", "post-rewrite", "amend"], &pair)
        .success();
    assert_eq!(
        (run.stdout(), run.stderr()),
        ("", ""),
        "silent, like post-commit"
    );

    repo.run(&["hooks", "uninstall"]).success();
    assert!(!read_log(&logs, "their-stdin").is_empty());
    assert!(
        !repo
            .read(".git/hooks/post-rewrite")
            .contains("# >>> majordomus >>>"),
        "the block is gone"
    );
}

#[test]
fn hooks_are_inert_in_an_uninitialised_repository() {
    let repo = TestRepo::new();
    let before = repo.files();
    for args in [
        vec!["hook", "post-commit"],
        vec!["hook", "pre-push", "origin", "url"],
        vec!["hook", "post-rewrite", "amend"],
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
    let topic = repo.head();
    assert_ne!(topic, base);

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
    assert_eq!(
        repo.ledger_text(),
        ledger,
        "a hook appended during a rebase"
    );

    // Finishing the rebase through git runs post-commit, which records nothing either, and
    // post-rewrite, which records the rebase's pair (git runs it before the rebase's state
    // is gone, so post-rewrite does not step aside).
    repo.write("README.md", "# Topic on main\n");
    repo.git(&["add", "README.md"]);
    assert_git_ok(&git_with_hooks(&repo, &["rebase", "--continue"]));
    assert!(!repo.path(".git/rebase-merge").exists());
    assert!(
        repo.ledger_events("commit.recorded").is_empty(),
        "a rewritten commit was recorded as a new one"
    );
    let rewritten = repo.ledger_events("commit.rewritten");
    assert_eq!(rewritten.len(), 1, "{}", repo.ledger_text());
    assert_eq!(rewritten[0]["session"], episode.as_str());
    assert_eq!(
        rewritten[0]["data"],
        json!({"by": "rebase", "pairs": [{"old": topic, "new": repo.head()}]})
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
            "majordomus episode {episode}\n\n{PRACTICE}\n{LEGEND}\n## Open questions (1)\n"
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
            .is_some_and(|b| b.starts_with(&format!("{PRACTICE}\n{LEGEND}\n## Open questions (1)"))),
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

/// One agent session through the provider hooks: start, `compact` (Gemini CLI runs it
/// before every turn), what `work` does, end. Returns the episode.
fn agent_session(repo: &TestRepo, work: impl FnOnce(&TestRepo)) -> String {
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "gemini-cli"],
        START_PAYLOAD,
    )
    .success();
    let episode = repo.episode_id();
    repo.run_with_stdin(&["hook", "compact", "--provider", "gemini-cli"], "")
        .success();
    work(repo);
    repo.run_with_stdin(
        &["hook", "session-end", "--provider", "gemini-cli"],
        END_PAYLOAD,
    )
    .success();
    episode
}

/// The `## Last handover` line of the briefing.
fn last_handover(repo: &TestRepo) -> String {
    let briefing = repo.run(&["briefing"]).success();
    briefing
        .stdout()
        .split("## Last handover\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("no last handover section: {briefing}"))
        .to_owned()
}

/// SPEC §8: an agent session that did nothing (start, a compaction, end) leaves no file to
/// commit, and is not the next briefing's handover: the automatic checkpoints alone never
/// make an episode non-empty. A handover is only ever this branch's.
#[test]
fn an_idle_agent_session_leaves_no_file_to_commit_and_no_handover() {
    let mut repo = TestRepo::initialised();
    // A session that decided something: a record and a handover, committed.
    let worked = agent_session(&repo, |repo| {
        repo.run(&["decision", "Parse the policy with yaml_serde"])
            .success();
    });
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "majordomus: episode"]);
    let handover = format!(".ai/local/state/handovers/{worked}.md");
    assert!(repo.exists(&handover));
    assert_eq!(last_handover(&repo), format!("- {handover}"));

    // Then an idle one: nothing to commit, no handover of its own.
    repo.now("2026-11-30T11:00:00Z");
    let idle = agent_session(&repo, |_| {});
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "an idle session left a file"
    );
    assert!(!repo.exists(&format!(".ai/local/state/handovers/{idle}.md")));
    let closed = repo.ledger_events("session.closed").pop().expect("closed");
    assert_eq!(closed["session"], idle.as_str());
    assert_eq!(closed["data"]["empty"], true, "{closed}");
    // Its checkpoints are in the ledger, marked as the hooks' own.
    let own: Vec<Value> = repo
        .ledger_events("checkpoint.recorded")
        .into_iter()
        .filter(|l| l["session"] == idle.as_str())
        .collect();
    assert_eq!(own.len(), 2, "the compact's and the session end's: {own:?}");
    assert!(
        own.iter().all(|l| l["data"]["automatic"] == true),
        "{own:?}"
    );
    // The session end says what it did (on stderr: the client's stdout is its own).
    let json = {
        repo.now("2026-11-30T11:30:00Z");
        repo.run_with_stdin(
            &["hook", "session-start", "--provider", "gemini-cli"],
            START_PAYLOAD,
        )
        .success();
        let end = repo
            .run_with_stdin(
                &["hook", "session-end", "--provider", "gemini-cli"],
                END_PAYLOAD,
            )
            .success();
        assert!(
            end.stderr().contains(
                " empty: no commit, no authored line, so no record and no handover were written"
            ),
            "{end}"
        );
        repo.run(&["--format", "json", "session", "list"])
            .success()
            .json()
    };
    assert_eq!(json["episodes"][0]["empty"], true, "{json}");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    // The next briefing hands over from the session that did something.
    assert_eq!(last_handover(&repo), format!("- {handover}"));

    // A checkpoint someone wrote is authored: that session is not empty.
    repo.now("2026-11-30T12:00:00Z");
    let noted = agent_session(&repo, |repo| {
        repo.run(&["checkpoint", "Halfway through the parser"])
            .success();
    });
    assert!(repo.exists(&format!(".ai/repo/sessions/{noted}.md")));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "majordomus: episode"]);
    let noted_handover = format!(".ai/local/state/handovers/{noted}.md");
    assert_eq!(last_handover(&repo), format!("- {noted_handover}"));

    // On another branch, main's handovers are not this branch's.
    repo.git(&["checkout", "-q", "-b", "other"]);
    assert_eq!(last_handover(&repo), "- none");
    repo.now("2026-11-30T13:00:00Z");
    let there = agent_session(&repo, |repo| {
        repo.run(&["decision", "Other work keeps its own parser"])
            .success();
    });
    assert_eq!(
        last_handover(&repo),
        format!("- .ai/local/state/handovers/{there}.md")
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "majordomus: episode on other"]);
    // Back on main: its own last handover, not the newer one of `other`.
    repo.git(&["checkout", "-q", "main"]);
    assert_eq!(last_handover(&repo), format!("- {noted_handover}"));
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
            "WARN majordomus.provider-events\n     WARN .ai/local/ledger.jsonl [majordomus.provider-events] #{} 2026-11-30T10:00:00Z: provider hook session-start (claude-code) failed: payload ignored: stdin is not JSON",
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

/// SPEC §8: a payload field of the wrong type is a failed provider event like an
/// unreadable payload (recorded, said on stderr, exit 0), never a success that clears the
/// earlier failures; a field that is not UTF-8 is refused for that field, never recorded
/// mangled.
#[test]
fn a_payload_field_of_the_wrong_type_or_not_utf8_is_a_failed_provider_event() {
    let repo = TestRepo::initialised();
    repo.commit("src/cafe.rs", "fn main() {}\n", "Add the cafe");
    let episode = repo.start_episode();
    let failures = |repo: &TestRepo| -> Vec<String> {
        repo.ledger_events("provider.event.failed")
            .iter()
            .map(|l| l["data"]["error"].as_str().expect("error").to_owned())
            .collect()
    };
    // An unreadable payload first: doctor warns.
    let run = repo.run_with_stdin(&["hook", "prompt", "--provider", "claude-code"], "{nope");
    assert_eq!((run.code(), run.stdout()), (0, ""), "{run}");
    assert_eq!(failures(&repo).len(), 1);

    // A prompt that is a number: recorded, said, exit 0, and it clears nothing.
    let run = repo.run_with_stdin(
        &["hook", "prompt", "--provider", "claude-code"],
        r#"{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":12345}"#,
    );
    assert_eq!((run.code(), run.stdout()), (0, ""), "{run}");
    assert_eq!(
        run.stderr(),
        "majordomus: prompt hook: payload field `prompt` is a number, not a string: ignored (recorded as provider.event.failed)\n"
    );
    assert_eq!(
        failures(&repo).last().map(String::as_str),
        Some("payload field `prompt` is a number, not a string: ignored")
    );
    assert!(
        repo.ledger_events_if_any("provider.event.cleared")
            .is_empty(),
        "a payload of the wrong type cleared the earlier failure"
    );
    let doctor = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(doctor["advisory"], 2, "{doctor}");
    // The same under --format json (how Gemini CLI's session start runs): the JSON says
    // it, and so does stderr.
    let run = repo.run_with_stdin(
        &[
            "--format",
            "json",
            "hook",
            "session-start",
            "--provider",
            "gemini-cli",
        ],
        r#"{"session_id":["s1"],"cwd":7}"#,
    );
    assert_eq!(run.code(), 0, "{run}");
    let json = run.json();
    assert_eq!(json["did"], "started", "{json}");
    assert_eq!(
        json["payload_failed"],
        "payload field `session_id` is an array, not a string: ignored; payload field `cwd` is a number, not a string: ignored",
        "{json}"
    );
    assert!(
        run.stderr()
            .starts_with("majordomus: session-start hook: payload field `session_id`"),
        "{run}"
    );

    // A raw 0xE9 byte in an edit's path: refused for that field, no path recorded.
    let mut payload = br#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"src/caf"#.to_vec();
    payload.push(0xe9);
    payload.extend_from_slice(br#".rs"}}"#);
    let out = repo
        .command_in(repo.root(), &["hook", "edit", "--provider", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(&payload)
                .expect("write the payload");
            child.wait_with_output()
        })
        .expect("run hook edit");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "majordomus: edit hook: payload field `tool_input.file_path` is not UTF-8: ignored (majordomus reads and records paths and text as UTF-8) (recorded as provider.event.failed)\n"
    );
    assert!(
        repo.ledger_events_if_any("agent.touched").is_empty(),
        "{}",
        repo.ledger_text()
    );
    assert!(
        !repo.ledger_text().contains('\u{fffd}'),
        "a mangled path was recorded"
    );

    // A payload that reads clears this hook's failures, as before.
    repo.run_with_stdin(
        &["hook", "prompt", "--provider", "claude-code"],
        r#"{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"parser"}"#,
    )
    .success();
    let cleared = repo.ledger_events("provider.event.cleared");
    assert_eq!(cleared.len(), 1, "{cleared:?}");
    assert_eq!(cleared[0]["session"], episode.as_str());
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

/// The never-fail policy is the registry's declaration (`provider_hook`), applied by the
/// CLI's one exit-code mapping: a provider hook's usage error or failure exits 0 and says
/// so on stderr; the same words elsewhere on the command line, or the same failure of a
/// plain command, keep their exit codes.
#[test]
fn only_a_provider_hook_never_fails_its_caller() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    for args in [
        vec!["hook", "compact", "--bogus"],
        vec!["--format", "json", "hook", "session-start", "--provider"],
        vec!["-C", ".", "hook", "session-end", "extra"],
    ] {
        let run = repo.run_with_stdin(&args, "");
        assert_eq!(run.code(), 0, "{args:?}: {run}");
        assert_eq!(run.stdout(), "", "{args:?}: {run}");
        assert!(run.stderr().contains("error:"), "said on stderr: {run}");
    }
    // `hook` and `compact` as a decision's words are a usage error of `decision` (exit 2,
    // rule `usage`), as a bogus flag of a plain command is; said the same without JSON.
    for args in [
        &["decision", "hook", "compact"][..],
        &["knowledge", "derive", "--bogus"][..],
        &["hook", "post-commit", "--bogus"][..],
    ] {
        let mut json = vec!["--format", "json"];
        json.extend_from_slice(args);
        repo.run(&json).json_error(2, "usage");
        let human = repo.run(args).expect_code(2);
        assert!(human.stderr().starts_with("error: "), "{human}");
    }
    // The same failure: an unreadable policy. The provider hook exits 0 and says it on
    // stderr; the plain command that does the same work fails with exit 1 and the rule
    // `policy.readable`.
    repo.write_policy("session: [\n");
    let hook = repo.run_with_stdin(&["hook", "compact", "--provider", "claude-code"], "");
    assert_eq!(hook.code(), 0, "{hook}");
    assert!(
        hook.stderr().starts_with("majordomus: compact hook failed"),
        "{hook}"
    );
    repo.run(&["--format", "json", "knowledge", "derive"])
        .json_error(1, "policy.readable");
    let plain = repo.run(&["knowledge", "derive"]).expect_code(1);
    assert!(plain.stderr().starts_with("majordomus: "), "{plain}");
    assert!(
        plain
            .stderr()
            .contains("\nfix: correct the YAML at .ai/repo/policy.yaml"),
        "{plain}"
    );
}

// --- real hook managers: husky v8 (npm) and the pre-commit framework (PyPI) -------------

/// Whether the external `tool` a test needs is here. Under `CI=true` a missing tool fails
/// the test (`.ci/run` installs it); elsewhere the test says SKIPPED loudly, past the
/// harness's capture, and does nothing else.
fn have_tool(tool: &str, found: bool, install: &str) -> bool {
    if found {
        return true;
    }
    crate::common::missing_tool(tool, install);
    false
}

/// `cmd` run to completion in the pinned environment; its output when it succeeded.
fn tool_run(repo: &TestRepo, program: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(program);
    cmd.args(args)
        .current_dir(repo.root())
        .stdin(Stdio::null())
        .env("MAJORDOMUS_BIN", bin());
    for (key, value) in pinned_env(repo) {
        cmd.env(key, value);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("spawn {program}: {e}"))
}

/// The variables git runs get in tests, for the tools that run git themselves.
fn pinned_env(repo: &TestRepo) -> Vec<(String, String)> {
    let home = repo.base().join("home");
    vec![
        ("HOME".into(), home.display().to_string()),
        ("TMPDIR".into(), repo.tmpdir().display().to_string()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
        ("GIT_AUTHOR_NAME".into(), "Ada Tester".into()),
        ("GIT_AUTHOR_EMAIL".into(), "ada@example.invalid".into()),
        ("GIT_COMMITTER_NAME".into(), "Ada Tester".into()),
        ("GIT_COMMITTER_EMAIL".into(), "ada@example.invalid".into()),
        (
            "PRE_COMMIT_HOME".into(),
            repo.base().join("pre-commit-cache").display().to_string(),
        ),
        // The machine's npm cache (`.ci/run` fills it), not the test's empty HOME.
        (
            "npm_config_cache".into(),
            std::env::var("npm_config_cache")
                .unwrap_or_else(|_| format!("{}/.npm", std::env::var("HOME").unwrap_or_default())),
        ),
        ("npm_config_update_notifier".into(), "false".into()),
        ("npm_config_fund".into(), "false".into()),
        ("npm_config_audit".into(), "false".into()),
    ]
}

#[track_caller]
fn assert_tool_ok(what: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Real husky v8 from npm in the test repository (`npm install husky@8`, `npx husky
/// install`), or `None` when npm is missing outside CI. With npm here, a failed install
/// fails the test.
fn real_husky8(repo: &TestRepo) -> Option<()> {
    let npm = std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_tool("npm", npm, "apt-get install npm") {
        return None;
    }
    repo.write(
        "package.json",
        "{\"name\": \"team\", \"version\": \"1.0.0\", \"private\": true}\n",
    );
    repo.write(
        ".gitignore",
        &format!("{}node_modules/\n", repo.read(".gitignore")),
    );
    let installed = tool_run(
        repo,
        "npm",
        &["install", "--prefer-offline", "--silent", "husky@8"],
    );
    // npm is here: an install that fails (no network, no cache) is a failure, not a skip.
    assert_tool_ok("npm install husky@8", &installed);
    assert_tool_ok(
        "npx husky install",
        &tool_run(repo, "npx", &["--no", "husky", "install"]),
    );
    Some(())
}

/// The team's husky v8 hook `name`, added the way husky's docs say (`npx husky add`): it
/// appends a line to `logs/team-<name>` and fails while `logs/fail` exists.
fn husky8_add(repo: &TestRepo, logs: &Path, name: &str) {
    let l = logs.display();
    let command = format!("echo {name} >> '{l}/team-{name}'; test ! -e '{l}/fail'");
    assert_tool_ok(
        "npx husky add",
        &tool_run(
            repo,
            "npx",
            &["--no", "husky", "add", &format!(".husky/{name}"), &command],
        ),
    );
}

fn log_lines(logs: &Path, name: &str) -> usize {
    std::fs::read_to_string(logs.join(name)).map_or(0, |t| t.lines().count())
}

/// A session record carrying a GitHub token: a secret the push must refuse.
fn leaky_session_record() -> String {
    format!(
        "---\nschema: session/v1\nnote: pasted by mistake\n---\nThe token was ghp_{}.\n",
        "a1B2".repeat(9)
    )
}

#[test]
fn husky_v8_runs_majordomus_once_per_hook_and_honours_husky_0() {
    let repo = TestRepo::initialised();
    if real_husky8(&repo).is_none() {
        return;
    }
    let logs = logs(&repo);
    husky8_add(&repo, &logs, "post-commit");
    husky8_add(&repo, &logs, "pre-push");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Add husky v8"]);
    let origin = repo.add_origin();
    let husky = repo.path(".husky");
    let pristine = tree(&husky);

    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "chained"),
            ("pre-push", "chained"),
            ("post-rewrite", "installed"),
        ]),
        "{report:#}"
    );
    assert!(
        report["hooks"]
            .as_array()
            .expect("hooks")
            .iter()
            .all(|h| h["manager"] == "husky-v8"),
        "{report:#}"
    );
    // The block comes after husky's line, which runs the file again under `sh -e`.
    let post_commit = repo.read(".husky/post-commit");
    let husky_line = post_commit
        .find("/_/husky.sh\"")
        .expect("husky's line is kept");
    let block = post_commit.find("# >>> majordomus >>>").expect("the block");
    assert!(husky_line < block, "{post_commit}");
    assert!(
        repo.read(".husky/post-rewrite")
            .starts_with("#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n"),
        "our own file sources husky.sh too"
    );

    let episode = repo.start_episode();
    let theirs = log_lines(&logs, "team-post-commit");
    repo.write("a.txt", "a\n");
    repo.git(&["add", "a.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Add a"]));
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1, "one commit.recorded per commit");
    assert_eq!(recorded[0]["session"], episode.as_str());
    assert_eq!(
        log_lines(&logs, "team-post-commit"),
        theirs + 1,
        "the team's hook ran once"
    );

    // HUSKY=0 skips majordomus like every other hook.
    repo.write("b.txt", "b\n");
    repo.git(&["add", "b.txt"]);
    let mut commit = repo.git_command_in(repo.root(), &["commit", "-q", "-m", "Add b"]);
    commit.env("MAJORDOMUS_BIN", bin()).env("HUSKY", "0");
    assert_git_ok(&commit.output().expect("git commit"));
    assert_eq!(
        repo.ledger_events("commit.recorded").len(),
        1,
        "HUSKY=0 skips it"
    );
    assert_eq!(log_lines(&logs, "team-post-commit"), theirs + 1);

    // The push check runs once: a refused push says so once.
    repo.write(".ai/repo/sessions/leak.md", &leaky_session_record());
    repo.git(&["add", ".ai/repo/sessions/leak.md"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Leak"]));
    let before = repo.git_in(&origin, &["rev-parse", "main"]);
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("majordomus: push refused").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        log_lines(&logs, "team-pre-push"),
        0,
        "husky stops at our failure"
    );
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), before);
    repo.git(&["reset", "-q", "--keep", "HEAD~1"]);

    // doctor: every hook reached once.
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let rule = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.hooks-reached")
        .expect("the rule runs")
        .clone();
    assert_eq!(rule["status"], "pass", "{rule:#}");

    // An earlier version put the block before husky's line: it ran twice. doctor says so,
    // and its fix, run as printed, puts it after.
    let text = repo.read(".husky/post-commit");
    let block_text = &text[block..text.find("# <<< majordomus <<<\n").expect("end") + 21];
    let without = text.replacen(block_text, "", 1);
    let before_line = without.replacen(
        "#!/usr/bin/env sh\n",
        &format!("#!/usr/bin/env sh\n{block_text}"),
        1,
    );
    std::fs::write(repo.path(".husky/post-commit"), &before_line).expect("write");
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let finding = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .find(|f| f["rule"] == "majordomus.hooks-reached")
        .expect("a hooks-reached finding");
    assert!(
        finding["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("post-commit reached twice: ")),
        "{finding:#}"
    );
    let fix = finding["fix"].as_str().expect("fix").to_owned();
    assert_eq!(fix, "majordomus hooks install");
    let ran = repo.sh_in(repo.root(), &fix);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(
        repo.read(".husky/post-commit"),
        text,
        "the block is after husky's line again"
    );
    repo.write("c.txt", "c\n");
    repo.git(&["add", "c.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Add c"]));
    assert_eq!(
        repo.ledger_events("commit.recorded").len(),
        3,
        "one more, once"
    );

    // A linked worktree: husky's `.husky/_` is git-ignored, so husky.sh is missing there and
    // every husky hook stops at its first line. doctor says so; its fix, as printed, mends it.
    repo.git(&["add", ".husky"]);
    repo.git(&["commit", "-q", "-m", "Share majordomus's hooks"]);
    let worktree = repo.base().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        worktree.to_str().expect("utf-8"),
    ]);
    let doctor = repo
        .run_in(&worktree, &["--format", "json", "doctor"])
        .json();
    let found: Vec<Value> = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["rule"] == "majordomus.hooks-reached")
        .collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    let message = found[0]["message"].as_str().expect("message");
    assert!(
        message.contains("is git-ignored and missing in this work tree, so every husky hook here stops at its husky.sh line"),
        "{message}"
    );
    let fix = found[0]["fix"].as_str().expect("fix").to_owned();
    let ran = repo.sh_in(&worktree, &fix);
    assert!(
        ran.status.success(),
        "{fix}: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let doctor = repo
        .run_in(&worktree, &["--format", "json", "doctor"])
        .json();
    assert!(
        doctor["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .any(|r| r["rule"] == "majordomus.hooks-reached" && r["status"] == "pass"),
        "{doctor:#}"
    );
    repo.git(&[
        "worktree",
        "remove",
        "--force",
        worktree.to_str().expect("utf-8"),
    ]);
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    repo.git(&["reset", "-q"]);

    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&pristine, &tree(&husky));
}

/// Real pre-commit (PyPI) with a local hook the team runs at pre-push and post-commit.
fn real_pre_commit(repo: &TestRepo, logs: &Path) -> Option<()> {
    let found = std::process::Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_tool("pre-commit", found, "python3 -m pip install pre-commit") {
        return None;
    }
    let l = logs.display();
    repo.write(
        ".pre-commit-config.yaml",
        &format!(
            "default_install_hook_types: [pre-push, post-commit]\nrepos:\n- repo: local\n  hooks:\n  - id: team\n    name: the team's check\n    entry: sh -c 'echo \"$PRE_COMMIT_HOOK_STAGE\" >> {l}/team; test ! -e {l}/fail'\n    language: system\n    always_run: true\n    pass_filenames: false\n    stages: [pre-push, post-commit]\n"
        ),
    );
    repo.git(&["add", ".pre-commit-config.yaml"]);
    repo.git(&["commit", "-q", "-m", "Add pre-commit"]);
    Some(())
}

fn pre_commit_install(repo: &TestRepo, args: &[&str]) {
    let mut all = vec!["install"];
    all.extend(args);
    assert_tool_ok("pre-commit install", &tool_run(repo, "pre-commit", &all));
}

/// With pre-commit in front, whichever was installed first: one `commit.recorded` per
/// commit, the push check once, the team's check still deciding, doctor clean.
fn assert_pre_commit_runs_us_once(repo: &TestRepo, origin: &Path, logs: &Path) {
    let episode = repo.start_episode();
    let recorded = repo.ledger_events("commit.recorded").len();
    repo.write("notes.txt", &format!("{recorded}\n"));
    repo.git(&["add", "notes.txt"]);
    assert_git_ok(&git_with_hooks(repo, &["commit", "-q", "-m", "Add notes"]));
    let now = repo.ledger_events("commit.recorded");
    assert_eq!(now.len(), recorded + 1, "one commit.recorded per commit");
    assert_eq!(now[recorded]["session"], episode.as_str());

    // The team's failing check still refuses the push.
    std::fs::write(logs.join("fail"), "").expect("make the team's check fail");
    let before = repo.git_in(origin, &["rev-parse", "main"]);
    let output = git_with_hooks(repo, &["push", "-q", "origin", "main"]);
    assert!(!output.status.success(), "the team's check was bypassed");
    assert_eq!(repo.git_in(origin, &["rev-parse", "main"]), before);
    std::fs::remove_file(logs.join("fail")).expect("pass again");

    // A secret: majordomus refuses, once.
    repo.write(".ai/repo/sessions/leak.md", &leaky_session_record());
    repo.git(&["add", ".ai/repo/sessions/leak.md"]);
    assert_git_ok(&git_with_hooks(repo, &["commit", "-q", "-m", "Leak"]));
    let output = git_with_hooks(repo, &["push", "-q", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("majordomus: push refused").count(),
        1,
        "{stderr}"
    );
    repo.git(&["reset", "-q", "--keep", "HEAD~1"]);
    let output = git_with_hooks(repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    assert_eq!(repo.git_in(origin, &["rev-parse", "main"]), repo.head());
    repo.run(&["session", "close"]).success();

    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let rule = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.hooks-reached")
        .expect("the rule runs")
        .clone();
    assert_eq!(rule["status"], "pass", "{rule:#}");
}

#[test]
fn pre_commit_installed_before_majordomus_runs_it_once() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    if real_pre_commit(&repo, &logs).is_none() {
        return;
    }
    let origin = repo.add_origin();
    pre_commit_install(&repo, &[]);
    let dir = repo.path(".git/hooks");
    let pristine = tree(&dir);
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(
        actions(&report),
        pairs(&[
            ("post-commit", "installed"),
            ("pre-push", "installed"),
            ("post-rewrite", "installed"),
        ]),
        "{report:#}"
    );
    assert_eq!(report["hooks"][1]["path"], ".git/hooks/pre-push.legacy");
    assert_eq!(report["hooks"][1]["manager"], "pre-commit");
    assert_pre_commit_runs_us_once(&repo, &origin, &logs);
    // Reinstalling either changes nothing.
    pre_commit_install(&repo, &[]);
    let again = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&again), all("unchanged"), "{again:#}");
    repo.run(&["hooks", "uninstall"]).success();
    assert_same_tree(&pristine, &tree(&dir));
}

#[test]
fn pre_commit_installed_after_majordomus_keeps_one_copy_and_uninstall_removes_it() {
    let repo = TestRepo::initialised();
    let logs = logs(&repo);
    if real_pre_commit(&repo, &logs).is_none() {
        return;
    }
    let origin = repo.add_origin();
    let dir = repo.path(".git/hooks");
    repo.run(&["hooks", "install"]).success();
    // pre-commit moves our pre-push and post-commit aside to `.legacy` and runs them.
    pre_commit_install(&repo, &[]);
    assert_eq!(
        repo.read(".git/hooks/pre-push.legacy"),
        direct_script("pre-push"),
        "pre-commit moved ours to pre-push.legacy"
    );
    // Installing again recognises ours there: no second copy in pre-commit's script.
    let report = repo
        .run(&["--format", "json", "hooks", "install"])
        .success()
        .json();
    assert_eq!(actions(&report), all("unchanged"), "{report:#}");
    assert!(!repo.read(".git/hooks/pre-push").contains("majordomus"));
    assert_pre_commit_runs_us_once(&repo, &origin, &logs);

    // `pre-commit install -f` deletes `.legacy`: doctor names the hook no longer reached,
    // and its fix, run as printed, mends it.
    pre_commit_install(&repo, &["-f", "--hook-type", "pre-push"]);
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let findings: Vec<Value> = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["rule"] == "majordomus.hooks-reached")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["file"], ".git/hooks/pre-push");
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("pre-push not reached: git runs .git/hooks/pre-push for pre-push, which does not call majordomus")),
        "{findings:#?}"
    );
    let env = repo.run(&["env"]).success();
    assert!(
        env.stdout().contains("  pre-push not reached: "),
        "{}",
        env.stdout()
    );
    let fix = findings[0]["fix"].as_str().expect("fix").to_owned();
    assert_eq!(fix, "majordomus hooks install");
    let ran = repo.sh_in(repo.root(), &fix);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_pre_commit_runs_us_once(&repo, &origin, &logs);

    // Uninstall takes ours out of `.legacy` too: nothing of majordomus runs any more.
    repo.run(&["hooks", "uninstall"]).success();
    for entry in std::fs::read_dir(&dir).expect("hooks dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        assert!(!name.ends_with(".legacy"), "{name} left behind");
        let text = std::fs::read(&path).expect("read");
        assert!(
            !String::from_utf8_lossy(&text).contains("majordomus"),
            "{name} still calls majordomus"
        );
    }
    let recorded = repo.ledger_events("commit.recorded").len();
    repo.start_episode();
    repo.write("after.txt", "after\n");
    repo.git(&["add", "after.txt"]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "After uninstall"],
    ));
    assert_eq!(repo.ledger_events("commit.recorded").len(), recorded);
}

// --- cherry-pick -----------------------------------------------------------------------

#[test]
fn a_cherry_pick_is_recorded_and_a_rebase_still_is_not() {
    let repo = TestRepo::initialised();
    repo.run(&["hooks", "install"]).success();
    repo.git(&["checkout", "-q", "-b", "topic"]);
    let one = repo.commit("one.txt", "1\n", "One");
    let _two = repo.commit("two.txt", "2\n", "Two");
    let three = repo.commit("three.txt", "3\n", "Three");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("main.txt", "main\n", "Main moves on");
    let episode = repo.start_episode();

    // One commit: post-commit runs while CHERRY_PICK_HEAD is still on disk.
    assert_git_ok(&git_with_hooks(&repo, &["cherry-pick", &one]));
    let recorded = repo.ledger_events("commit.recorded");
    assert_eq!(recorded.len(), 1, "{}", repo.ledger_text());
    assert_eq!(recorded[0]["session"], episode.as_str());
    assert_eq!(
        recorded[0]["data"],
        json!({"sha": repo.head(), "subject": "One"})
    );
    // A range: the sequencer's state is on disk for each.
    assert_git_ok(&git_with_hooks(
        &repo,
        &["cherry-pick", &format!("{one}..{three}")],
    ));
    let subjects: Vec<Value> = repo
        .ledger_events("commit.recorded")
        .iter()
        .map(|l| l["data"]["subject"].clone())
        .collect();
    assert_eq!(subjects, vec![json!("One"), json!("Two"), json!("Three")]);
    // A rebase's picks are rewrites: still not recorded as new commits (post-rewrite
    // records them).
    repo.git(&["checkout", "-q", "topic"]);
    repo.write("four.txt", "4\n");
    repo.git(&["add", "four.txt"]);
    assert_git_ok(&git_with_hooks(&repo, &["commit", "-q", "-m", "Four"]));
    let recorded = repo.ledger_events("commit.recorded").len();
    assert_git_ok(&git_with_hooks(&repo, &["rebase", "-q", "main"]));
    assert_eq!(repo.ledger_events("commit.recorded").len(), recorded);
    assert_eq!(repo.ledger_events("commit.rewritten").len(), 1);
}

// --- the push scan ---------------------------------------------------------------------

/// The findings of a by-hand `hook pre-push` for `main`, with what it scanned.
fn pre_push_json(repo: &TestRepo, remote_sha: &str) -> (i32, Value) {
    let line = format!(
        "refs/heads/main {} refs/heads/main {remote_sha}\n",
        repo.head()
    );
    let run = repo.run_with_stdin(
        &["--format", "json", "hook", "pre-push", "origin", "url"],
        &line,
    );
    (run.code(), run.json())
}

#[test]
fn a_secret_added_and_removed_before_the_push_is_refused_with_a_fix_that_works() {
    let repo = TestRepo::initialised();
    let origin = repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    let pushed = repo.head();
    repo.write(".ai/repo/sessions/leak.md", &leaky_session_record());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Record the session"]);
    let leak = repo.head();
    repo.git(&["rm", "-q", ".ai/repo/sessions/leak.md"]);
    repo.git(&["commit", "-q", "-m", "Drop the record"]);

    // The tip is clean; the history the push sends is not.
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the secret was pushed:\n{stderr}");
    assert!(
        stderr.contains("BLOCK .ai/repo/sessions/leak.md [push.secret] carries a secret shape (github-token) brought in by commit "),
        "{stderr}"
    );
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), pushed);
    let (code, json) = pre_push_json(&repo, &pushed);
    assert_eq!(code, 3, "{json:#}");
    assert_eq!(json["scanned"], json!({"commits": 2, "blobs": 1}));
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{json:#}");
    let finding = &findings[0];
    assert_eq!(finding["rule"], "push.secret");
    assert_eq!(finding["severity"], "blocking");
    let message = finding["message"].as_str().expect("message");
    assert!(message.contains(&leak[..12]), "names the commit: {message}");
    let fix = finding["fix"].as_str().expect("fix");
    assert!(fix.starts_with("rotate the secret"), "{fix}");
    let rebase = format!("git rebase -i --autostash --empty=drop {}", &pushed[..12]);
    assert!(fix.contains(&format!("rewrite the commit that added it: {rebase}, on the line of commit {} change `pick` to `edit`", &leak[..12])), "{fix}");

    // The fix as printed; the person at the editor is a sed that marks the line `edit`.
    let mut rebase_cmd = repo.git_command_in(
        repo.root(),
        &["rebase", "-i", "--autostash", "--empty=drop", &pushed[..12]],
    );
    rebase_cmd.env(
        "GIT_SEQUENCE_EDITOR",
        format!("sed -i 's/^pick \\({}[0-9a-f]*\\)/edit \\1/'", &leak[..7]),
    );
    assert_git_ok(&rebase_cmd.output().expect("git rebase -i"));
    std::fs::remove_file(repo.path(".ai/repo/sessions/leak.md")).expect("take the secret out");
    for step in [
        "git commit -a --amend --no-edit --allow-empty",
        "git rebase --continue",
    ] {
        assert!(fix.contains(step), "{fix}");
        let ran = repo.sh_in(repo.root(), step);
        assert!(
            ran.status.success(),
            "{step}: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), repo.head());
    let objects = repo.git_in(&origin, &["rev-list", "--objects", "--all"]);
    let secret_blob = repo.git(&["rev-parse", &format!("{leak}:.ai/repo/sessions/leak.md")]);
    assert!(
        !objects.contains(secret_blob.trim()),
        "the secret reached origin"
    );
}

#[test]
fn every_tracked_file_under_ai_repo_is_scanned_and_untracked_ones_never_count() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    let pushed = repo.head();
    repo.write(
        ".ai/repo/intents/plan.yaml",
        "schema: intent/v1\nnote: aws configure set aws_access_key_id AKIA7Q2X9K4M1B8N5V3Z\n",
    );
    repo.write(
        ".ai/repo/rules/project/team.yaml",
        "rules: []\n# db_password: s3cr3tValue99\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Plan and rules"]);
    // Untracked and uncommitted files never affect a push.
    repo.write(".ai/repo/sessions/draft.md", &leaky_session_record());
    let (code, json) = pre_push_json(&repo, &pushed);
    assert_eq!(code, 3, "{json:#}");
    let files: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "push.secret")
        .map(|f| f["file"].as_str().expect("file"))
        .collect();
    assert_eq!(
        files,
        vec![
            ".ai/repo/intents/plan.yaml",
            ".ai/repo/rules/project/team.yaml"
        ],
        "{json:#}"
    );
}

#[test]
fn a_secret_in_a_pushed_knowledge_record_is_said_once_with_the_history_fix() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    let pushed = repo.head();
    let episode = repo.start_episode();
    let id = format!("{episode}-0123456789ab");
    let file = format!(".ai/repo/knowledge/candidates/{id}.md");
    repo.write(
        &file,
        &format!(
            "---\nid: {id}\nschema: knowledge/v1\nclass: fact\nstatus: candidate\nstance: observed\ntitle: A claim\ndate: 2026-11-30\nprovenance:\n  origin: authored\n  derived_from:\n  - session:{episode}\n---\nThe key is ghp_{}.\n",
            "a1B2".repeat(9)
        ),
    );
    repo.git(&["add", &file]);
    repo.git(&["commit", "-q", "-m", "Add a claim"]);
    let (code, json) = pre_push_json(&repo, &pushed);
    assert_eq!(code, 3, "{json:#}");
    let rules: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["file"] == file.as_str())
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect();
    assert_eq!(rules, vec!["push.secret"], "{json:#}");
}

#[test]
fn the_push_scan_reads_what_the_push_sends_each_blob_once() {
    let repo = TestRepo::initialised();
    let origin = repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    let pushed = repo.head();
    // 20 commits, each adding one record and changing a shared one: 40 blobs under
    // .ai/repo/, not the 230 a scan of every file of every commit would read.
    for i in 0..20 {
        repo.write(
            &format!(".ai/repo/sessions/s{i:02}.md"),
            &format!("session {i}\n"),
        );
        repo.write(".ai/repo/sessions/index.md", &format!("up to {i}\n"));
        repo.write("src.txt", &format!("{i}\n"));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", &format!("Step {i}")]);
    }
    // A commit that leaves .ai/repo/ alone costs no blob read.
    repo.commit("other.txt", "x\n", "Outside the memory");
    let (code, json) = pre_push_json(&repo, &pushed);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["scanned"], json!({"commits": 21, "blobs": 40}));
    assert_git_ok(&git_with_hooks(&repo, &["push", "-q", "origin", "main"]));
    assert_eq!(repo.git_in(&origin, &["rev-parse", "main"]), repo.head());

    // The next push sends one commit: the remote-tracking ref hides the rest.
    let remote = repo.head();
    repo.write(".ai/repo/sessions/s20.md", "session 20\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Step 20"]);
    let (code, json) = pre_push_json(&repo, &remote);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["scanned"], json!({"commits": 1, "blobs": 1}));
    // A new branch whose remote ref does not exist yet: still only what no remote has.
    let (_, json) = pre_push_json(&repo, &"0".repeat(40));
    assert_eq!(json["scanned"], json!({"commits": 1, "blobs": 1}));
}

// --- doctor: hooks no longer reached ----------------------------------------------------

#[test]
fn doctor_names_hooks_a_manager_bypassed_and_a_worktree_without_husky() {
    let repo = TestRepo::initialised();
    // Never installed: a note, no finding.
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let rule = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "majordomus.hooks-reached")
        .expect("the rule runs")
        .clone();
    assert_eq!(rule["status"], "pass", "{rule:#}");
    assert!(
        rule["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("no git hook of majordomus is installed")),
        "{rule:#}"
    );
    let env = repo.run(&["env"]).success();
    assert!(
        env.stdout()
            .contains("hooks: not installed in .git/hooks (majordomus hooks install)"),
        "{}",
        env.stdout()
    );

    // Installed in .git/hooks, then husky v9 takes over core.hooksPath: bypassed.
    repo.run(&["hooks", "install"]).success();
    husky_layout(&repo);
    let hooks_findings = |repo: &TestRepo, dir: &Path| -> Vec<Value> {
        let run = repo.run_in(dir, &["--format", "json", "doctor"]);
        run.json()["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
            .filter(|f| f["rule"] == "majordomus.hooks-reached")
            .collect()
    };
    let found = hooks_findings(&repo, repo.root());
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(
        found[0]["message"],
        "post-commit not reached: git runs .husky/_/post-commit for post-commit, which does not call majordomus (a hook manager replaced or bypassed it); majordomus is in .git/hooks/post-commit, which git does not run for it"
    );
    assert_eq!(found[0]["fix"], "majordomus hooks install");
    let ran = repo.sh_in(repo.root(), "majordomus hooks install");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(hooks_findings(&repo, repo.root()).is_empty());

    // A linked worktree: `.husky/_` is ignored, so it is not there and git runs no hook.
    // (husky's `.husky/_/.gitignore` is `*`: git never tracks the generated directory.)
    assert_eq!(repo.git(&["ls-files", ".husky/_"]), "");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "husky's directory is generated"]);
    let worktree = repo.base().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        worktree.to_str().expect("utf-8"),
    ]);
    let found = hooks_findings(&repo, &worktree);
    assert_eq!(found.len(), 3, "{found:#?}");
    let message = found[0]["message"].as_str().expect("message");
    assert!(
        message.starts_with("post-commit not reached: core.hooksPath is `.husky/_`, and "),
        "{message}"
    );
    assert!(
        message.contains("does not exist in this work tree"),
        "{message}"
    );
    let env = repo.run_in(&worktree, &["env"]).success();
    assert!(
        env.stdout()
            .contains("post-commit not reached: core.hooksPath"),
        "{}",
        env.stdout()
    );
    let fix = found[0]["fix"].as_str().expect("fix").to_owned();
    assert!(fix.starts_with("mkdir -p "), "{fix}");
    let ran = repo.sh_in(&worktree, &fix);
    assert!(
        ran.status.success(),
        "{fix}: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(hooks_findings(&repo, &worktree).is_empty());
    // And a commit there is recorded.
    let episode = repo
        .run_in(&worktree, &["--format", "json", "session", "start"])
        .success()
        .json()["episode"]["id"]
        .as_str()
        .expect("episode")
        .to_owned();
    std::fs::write(worktree.join("w.txt"), "w\n").expect("write");
    repo.git_in(&worktree, &["add", "w.txt"]);
    let output = repo
        .git_command_in(&worktree, &["commit", "-q", "-m", "In the worktree"])
        .env("MAJORDOMUS_BIN", bin())
        .output()
        .expect("git commit");
    assert_git_ok(&output);
    let ledger = std::fs::read_to_string(worktree.join(".ai/local/ledger.jsonl")).expect("ledger");
    assert!(
        ledger
            .lines()
            .any(|l| l.contains("commit.recorded") && l.contains(&episode)),
        "{ledger}"
    );
}

#[test]
fn a_provider_failure_names_its_error_and_the_printed_fix_clears_it() {
    let repo = TestRepo::initialised();
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        "{\"session_id\": abc",
    )
    .success();
    let failed = repo.ledger_events("provider.event.failed");
    let run = repo.run(&["doctor"]).success();
    assert!(
        run.stdout().contains(&format!(
            "#{} 2026-11-30T10:00:00Z: provider hook session-start (claude-code) failed: payload ignored: stdin is not JSON",
            failed[0]["seq"]
        )),
        "the recorded error is shown: {run}"
    );
    let fixes = crate::common::fix_lines(run.stdout());
    let fix = fixes
        .iter()
        .find(|f| f.starts_with("majordomus hooks"))
        .unwrap_or_else(|| panic!("no fix for the failure: {run}"));
    assert_eq!(
        fix,
        &format!(
            "majordomus hooks acknowledge --through {}",
            failed[0]["seq"]
        )
    );
    let said = repo.run_printed(fix);
    assert!(
        said.starts_with("acknowledged 1 provider hook failure(s)"),
        "{said}"
    );
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        crate::doctor::rule(&report, "majordomus.provider-events")["status"],
        "pass",
        "{report}"
    );
    assert_eq!(report["advisory"], 0, "{report}");
    // The failure stays in the ledger; history still shows it.
    let history = repo
        .run(&["history", "--event", "provider.event.failed"])
        .success();
    assert!(history.stdout().contains("stdin is not JSON"), "{history}");
}

#[test]
fn a_later_success_of_the_same_hook_clears_its_failures() {
    let repo = TestRepo::initialised();
    repo.start_episode();
    repo.write_policy("session: [\n");
    repo.run_with_stdin(&["hook", "compact", "--provider", "claude-code"], "")
        .success();
    let report = repo.run(&["--format", "json", "doctor"]).json();
    assert_eq!(
        crate::doctor::rule(&report, "majordomus.provider-events")["status"],
        "fail",
        "{report}"
    );
    // Mended, the same hook runs through: its failure no longer needs a look.
    repo.write_policy("{}\n");
    repo.run_with_stdin(&["hook", "compact", "--provider", "claude-code"], "")
        .success();
    let cleared = repo.ledger_events("provider.event.cleared");
    assert_eq!(cleared.len(), 1, "{}", repo.ledger_text());
    assert_eq!(cleared[0]["data"]["by"], "success");
    assert_eq!(cleared[0]["data"]["hook"], "compact");
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        crate::doctor::rule(&report, "majordomus.provider-events")["status"],
        "pass",
        "{report}"
    );
    // A success of another hook clears nothing of this one.
    repo.write_policy("session: [\n");
    repo.run_with_stdin(&["hook", "compact", "--provider", "claude-code"], "")
        .success();
    repo.write_policy("{}\n");
    repo.run_with_stdin(
        &["hook", "session-start", "--provider", "claude-code"],
        START_PAYLOAD,
    )
    .success();
    let report = repo.run(&["--format", "json", "doctor"]).success().json();
    assert_eq!(
        crate::doctor::rule(&report, "majordomus.provider-events")["status"],
        "fail",
        "{report}"
    );
}

/// git starts majordomus on every commit: on Linux (glibc) the executable is linked without
/// PIE, so the loader has no relative relocations to apply at each start (build.rs,
/// docs/PERFORMANCE.md "The installed hook"). The test reads the relocations themselves, so
/// any build that relocates at start fails it: a PIE (37,000 relative relocations), a
/// static PIE, or a build with `MAJORDOMUS_PIE=1`, which gives the guarantee up.
#[test]
fn the_executable_git_starts_on_every_commit_needs_no_relocating() {
    let bytes = std::fs::read(bin()).expect("read the binary");
    if !bytes.starts_with(b"\x7fELF") {
        // Not an ELF platform: build.rs links it as the platform does.
        assert_eq!(env!("MAJORDOMUS_LINKED_PIE"), "yes");
        return;
    }
    let relative = relative_relocations(&bytes);
    assert!(
        relative < 100,
        "{} carries {relative} relative relocations the loader applies at every start \
         (ELF type {}, MAJORDOMUS_LINKED_PIE={}): link it without PIE (build.rs)",
        bin().display(),
        u16::from_le_bytes([bytes[16], bytes[17]]),
        env!("MAJORDOMUS_LINKED_PIE"),
    );
    // What build.rs says it linked is what it is.
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    assert_eq!(e_type, 2, "a fixed-address executable (ET_EXEC)");
    assert_eq!(env!("MAJORDOMUS_LINKED_PIE"), "no");
}

/// The relative relocations of a 64-bit little-endian ELF file: the `R_*_RELATIVE` entries
/// of its `SHT_RELA` sections and the addresses its `SHT_RELR` sections pack (each word an
/// address, or a bitmap of up to 63).
fn relative_relocations(elf: &[u8]) -> usize {
    assert_eq!(elf[4], 2, "a 64-bit ELF file");
    assert_eq!(elf[5], 1, "a little-endian ELF file");
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().expect("2 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().expect("8 bytes"));
    let machine = u16_at(18);
    // R_X86_64_RELATIVE, R_AARCH64_RELATIVE.
    let relative_type = match machine {
        62 => 8,
        183 => 1027,
        other => panic!("ELF machine {other}: which relocation is relative is not known here"),
    };
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a) as usize, u16_at(0x3c));
    let mut count = 0;
    for n in 0..shnum as usize {
        let header = shoff + n * shentsize;
        let (kind, offset, size) = (
            u32_at(header + 4),
            u64_at(header + 0x18) as usize,
            u64_at(header + 0x20) as usize,
        );
        match kind {
            // SHT_RELA: r_offset, r_info (type in the low 32 bits), r_addend.
            4 => {
                count += (offset..offset + size)
                    .step_by(24)
                    .filter(|&at| u64_at(at + 8) & 0xffff_ffff == relative_type)
                    .count();
            }
            // SHT_RELR: an even word is an address, an odd one a bitmap of the next 63.
            19 => {
                count += (offset..offset + size)
                    .step_by(8)
                    .map(&u64_at)
                    .map(|w| {
                        if w & 1 == 0 {
                            1
                        } else {
                            (w >> 1).count_ones() as usize
                        }
                    })
                    .sum::<usize>();
            }
            _ => {}
        }
    }
    count
}

/// Each push says the advisories about the records it carries, and only those: a record
/// pushed before, unchanged, was said by the push that carried it (`knowledge check` and
/// `doctor` still list it).
#[test]
fn pre_push_says_only_the_advisories_about_records_the_push_carries() {
    let repo = TestRepo::initialised();
    repo.add_origin();
    repo.run(&["hooks", "install"]).success();
    let episode = repo.start_episode();
    // A candidate naming a commit a rebase rewrote into one this clone has: advisory.
    let gone = "0123456789abcdef0123456789abcdef01234567";
    repo.append_ledger_line(
        "commit.rewritten",
        None,
        json!({"by": "rebase", "pairs": [{"old": gone, "new": repo.head()}]}),
    );
    let rejected = |id: &str, why: &str| {
        crate::common::knowledge_record(
            id,
            "candidate",
            &[&format!("commit:{gone}")],
            "",
            &format!("A claim. {why}"),
        )
    };
    let files: Vec<String> = (1..=2)
        .map(|n| format!(".ai/repo/knowledge/candidates/{episode}-{n:012x}.md"))
        .collect();
    let ids: Vec<String> = (1..=2).map(|n| format!("{episode}-{n:012x}")).collect();
    for (file, id) in files.iter().zip(&ids) {
        repo.write(file, &rejected(id, "It no longer holds."));
    }
    repo.git(&["add", ".ai/repo/knowledge"]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Two claims"],
    ));
    let warned = |stderr: &str, file: &str| {
        stderr.contains(&format!("WARN {file} [knowledge.commit-rewritten]"))
    };

    // The first push carries both: both are said.
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        warned(&stderr, &files[0]) && warned(&stderr, &files[1]),
        "{stderr}"
    );

    // A commit that changes only the second: its push says only the second.
    let upstream = repo.head();
    repo.write(&files[1], &rejected(&ids[1], "It never held."));
    repo.git(&["add", &files[1]]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Say why again"],
    ));
    let (code, json) = pre_push_json(&repo, &upstream);
    assert_eq!(code, 0, "{json:#}");
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{json:#}");
    assert_eq!(findings[0]["file"], files[1].as_str());
    assert_eq!(findings[0]["rule"], "knowledge.commit-rewritten");
    assert_eq!(findings[0]["severity"], "advisory");
    assert_eq!(json["not_carried"], 1, "{json:#}");
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(warned(&stderr, &files[1]), "{stderr}");
    assert!(!warned(&stderr, &files[0]), "{stderr}");

    // A push that carries no record says nothing about them.
    repo.write("src/lib.rs", "//! lib\n");
    repo.git(&["add", "src/lib.rs"]);
    assert_git_ok(&git_with_hooks(
        &repo,
        &["commit", "-q", "-m", "Add the library"],
    ));
    let output = git_with_hooks(&repo, &["push", "-q", "origin", "main"]);
    assert_git_ok(&output);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("[knowledge."), "{stderr}");

    // Both are still findings where the whole store is judged.
    let check = repo
        .run(&["--format", "json", "knowledge", "check"])
        .success()
        .json();
    assert_eq!(
        check["findings"].as_array().map(Vec::len),
        Some(2),
        "{check}"
    );
}
