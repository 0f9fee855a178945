//! The `--help` reference, snapshotted so interface changes show in review, and usage
//! errors (exit 2).

use crate::common::TestRepo;

/// Every command path of the CLI, walked from clap's own command tree, so a new command
/// cannot be left out of the reference.
fn commands() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            path.push(sub.get_name().to_owned());
            walk(sub, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(&majordomus::cli::command(), &mut Vec::new(), &mut out);
    out
}

/// The leaf commands (those with no subcommand of their own).
pub fn leaf_commands() -> Vec<Vec<String>> {
    let all = commands();
    all.iter()
        .filter(|c| {
            !c.is_empty()
                && !all
                    .iter()
                    .any(|o| o.len() == c.len() + 1 && o.starts_with(c))
        })
        .cloned()
        .collect()
}

#[test]
fn clap_definition_is_consistent() {
    majordomus::cli::command().debug_assert();
}

#[test]
fn help_reference() {
    let dir = TestRepo::unversioned();
    for command in commands() {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let run = dir.run(&args).success();
        assert_eq!(run.stderr(), "", "{run}");
        let name = if command.is_empty() {
            "help_majordomus".to_owned()
        } else {
            format!("help_{}", command.join("_"))
        };
        insta::assert_snapshot!(name, run.stdout());
    }
}

#[test]
fn short_help_is_shorter_and_exits_zero() {
    let dir = TestRepo::unversioned();
    let short = dir.run(&["-h"]).success();
    let long = dir.run(&["--help"]).success();
    assert!(short.stdout().starts_with("A git-native memory"), "{short}");
    assert!(short.stdout().len() < long.stdout().len());
}

#[test]
fn version_names_the_crate_version() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["--version"]).success();
    assert_eq!(
        run.stdout(),
        format!("majordomus {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn usage_errors_exit_2() {
    let repo = TestRepo::initialised();
    let bare = repo.run(&[]).expect_code(2);
    assert_eq!(bare.stdout(), "", "{bare}");
    assert!(
        bare.stderr()
            .contains("Usage: majordomus [OPTIONS] <COMMAND>"),
        "{bare}"
    );
    for args in [
        &["frobnicate"][..],
        &["decision"][..],
        &["question"][..],
        &["question", "resolve", "q-0123456789"][..],
        &["checkpoint", "one", "two"][..],
        &["--format", "yaml", "env"][..],
        &["session", "start", "--provider"][..],
    ] {
        let run = repo.run(args).expect_code(2);
        assert_eq!(run.stdout(), "", "{run}");
        assert!(run.stderr().starts_with("error: "), "{run}");
        assert!(run.stderr().contains("--help"), "{run}");
    }
    assert_eq!(
        repo.ledger_text_if_any(),
        None,
        "a usage error made a ledger"
    );
}

#[test]
fn help_examples_keep_one_command_per_line() {
    let dir = TestRepo::unversioned();
    for (args, example) in [
        (
            &["session", "start", "--help"][..],
            "majordomus session start --provider example-agent",
        ),
        (&["env", "--help"][..], "majordomus env --format json"),
        (&["demo", "--help"][..], "majordomus demo --keep"),
        (
            &["history", "--help"][..],
            "majordomus history --event decision.recorded",
        ),
    ] {
        let run = dir.run(args).success();
        assert!(
            run.stdout()
                .lines()
                .any(|l| l.trim_start().starts_with(example)),
            "`{example}` is not on a line of its own: {run}"
        );
    }
    // Every help's examples block, kept verbatim: indented, one command a line.
    for command in commands() {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let run = dir.run(&args).success();
        let examples = run
            .stdout()
            .lines()
            .skip_while(|l| !matches!(*l, "Example:" | "Examples:"))
            .skip(1)
            .take_while(|l| !l.is_empty());
        for line in examples {
            assert!(
                line.starts_with("  ") && line.matches("majordomus ").count() == 1,
                "`{line}` is not one indented command: {run}"
            );
        }
    }
}

#[test]
fn usage_errors_are_json_when_json_is_asked_for() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["--format", "json", "session", "bogus"]);
    let json = run.json_error(2, "usage");
    assert!(
        json["message"]
            .as_str()
            .is_some_and(|m| m.contains("bogus")),
        "{json}"
    );
    assert_eq!(
        run.stderr(),
        "",
        "the JSON error is the whole output: {run}"
    );

    // Any usage error, wherever `--format json` stands: the SPEC error object on stdout.
    let repo = TestRepo::initialised();
    for args in [
        &["--format", "json", "frobnicate"][..],
        &["session", "bogus", "--format", "json"][..],
        &["--format=json", "checkpoint", "one", "two"][..],
        &["--format", "json", "history", "--since"][..],
        &["session", "start", "--format", "json", "--provider"][..],
    ] {
        let run = repo.run(args);
        run.json_error(2, "usage");
        assert_eq!(run.stderr(), "", "{run}");
    }
    assert_eq!(
        repo.ledger_text_if_any(),
        None,
        "a usage error made a ledger"
    );
}

#[test]
fn a_json_usage_error_names_what_is_missing() {
    let dir = TestRepo::unversioned();
    let run = dir.run(&["--format", "json", "decision"]);
    let error = run.json_error(2, "usage");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("<TEXT>")),
        "{error}"
    );
}

#[test]
fn completions_for_every_shell() {
    let dir = TestRepo::unversioned();
    for (shell, needle) in [
        ("bash", "_majordomus()"),
        ("zsh", "#compdef majordomus"),
        ("fish", "complete -c majordomus"),
        ("elvish", "edit:completion:arg-completer[majordomus]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let run = dir.run(&["completions", shell]).success();
        assert!(run.stdout().contains(needle), "{shell}: {run}");
        assert!(
            run.stdout().contains("knowledge"),
            "{shell} completes subcommands"
        );
    }
    dir.run(&["completions", "tcsh"]).expect_code(2);
}

/// The lowercase words (runs of ASCII letters and digits) of `text`, parenthesised asides
/// left out.
fn summary_words(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0_usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether a help page's second paragraph only restates its first: its first sentence
/// (up to the first `.`, `!` or `?` followed by a space or the end), parenthesised asides
/// left out, has at least 80 % of its words (counted with repetition) among the words of
/// the first paragraph.
fn restates(first: &str, second: &str) -> bool {
    let end = second
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && second[i + 1..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map_or(second.len(), |(i, _)| i);
    let said: std::collections::BTreeSet<String> = summary_words(first).into_iter().collect();
    let sentence = summary_words(&second[..end]);
    let shared = sentence.iter().filter(|w| said.contains(*w)).count();
    !sentence.is_empty() && shared * 5 >= sentence.len() * 4
}

/// A help page opens with one summary (the registry's, for an operation's command): its
/// second paragraph says something new, for every command of the CLI.
#[test]
fn no_help_page_says_its_summary_twice() {
    // The measure, on a page that said it twice and one that does not.
    assert!(restates(
        "Drop published segments older than ledger.retention_days from this writer's ref (dry run unless\napply).",
        "Drop published segments older than ledger.retention_days (dry run by default)."
    ));
    assert!(!restates(
        "Drop published segments older than ledger.retention_days from this writer's ref (dry run unless\napply).",
        "--apply rewrites this writer's own ref without them; the next push force-updates\nthat ref (and only it) on the remote."
    ));
    let dir = TestRepo::unversioned();
    let mut twice = Vec::new();
    for command in commands() {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let run = dir.run(&args).success();
        let mut paragraphs = run.stdout().split("\n\n");
        let (Some(first), Some(second)) = (paragraphs.next(), paragraphs.next()) else {
            continue;
        };
        if restates(first, second) {
            twice.push(format!(
                "majordomus {}:\n{first}\n\n{second}",
                command.join(" ")
            ));
        }
    }
    assert!(
        twice.is_empty(),
        "help pages whose second paragraph restates the first:\n\n{}",
        twice.join("\n\n")
    );
}
