//! The command-line surface: clap arguments (one file per command), each parsed into its
//! operation's request and rendered from its result (`crate::render`), and the one
//! mapping of outcomes to exit codes (`exit.rs`). No logic of its own.

mod briefing;
mod checkpoint;
mod completions;
mod context;
mod decision;
mod demo;
mod doctor;
mod env;
mod exit;
mod handover;
mod history;
mod hook;
mod hooks;
mod init;
mod intent;
mod journal;
mod knowledge;
mod mcp;
mod mesh;
mod plan;
mod question;
mod reasoning;
mod recall;
mod rules;
mod schema;
mod serve;
mod session;
mod setup;
mod task;
mod watch;
mod worktrees;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::error::{Class, Error, UsageError};
use crate::model::Verdict;
use crate::ops::{Invoked, Registry, Report};
use crate::{Clock, Ctx};

/// A git-native memory for a repository worked on by coding agents and people.
///
/// majordomus keeps an append-only ledger of what each working episode did and decided,
/// composes the working context and the closed session record from that ledger and git,
/// and never invents anything: same evidence, same bytes.
#[derive(Debug, Parser)]
#[command(
    name = "majordomus",
    version,
    after_help = "Examples:\n  majordomus demo                      # a full episode in a throwaway repository\n  majordomus init                      # set up .ai/ in this repository\n  majordomus session start             # open an episode\n  majordomus decision \"use gix for git access\"\n  majordomus session context           # what this episode did so far\n  echo \"parser done\" | majordomus session close"
)]
pub struct Cli {
    /// Output format: human-readable text or one JSON document on stdout.
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Run as if started in this directory (like `git -C`).
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub directory: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Subcommand)]
#[command(verbatim_doc_comment)]
pub enum Command {
    Init(init::InitArgs),
    #[command(subcommand)]
    Session(session::SessionCommand),
    Decision(decision::DecisionArgs),
    Question(question::QuestionArgs),
    Checkpoint(checkpoint::CheckpointArgs),
    History(history::HistoryArgs),
    Worktrees(worktrees::WorktreesArgs),
    Briefing(briefing::BriefingArgs),
    Context(context::ContextArgs),
    Recall(recall::RecallArgs),
    Show(recall::ShowArgs),
    #[command(subcommand)]
    Task(task::TaskCommand),
    #[command(subcommand)]
    Intent(intent::IntentCommand),
    #[command(subcommand)]
    Plan(plan::PlanCommand),
    Handover(handover::HandoverArgs),
    #[command(subcommand)]
    Reasoning(reasoning::ReasoningCommand),
    #[command(subcommand)]
    Knowledge(knowledge::KnowledgeCommand),
    #[command(subcommand)]
    Journal(journal::JournalCommand),
    #[command(subcommand)]
    Mesh(mesh::MeshCommand),
    Doctor(doctor::DoctorArgs),
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    Watch(watch::WatchArgs),
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    #[command(subcommand)]
    Hook(hook::HookCommand),
    Env(env::EnvArgs),
    Setup(setup::SetupArgs),
    Mcp(mcp::McpArgs),
    Serve(serve::ServeArgs),
    Schema(schema::SchemaArgs),
    Completions(completions::CompletionsArgs),
    Demo(demo::DemoArgs),
}

/// The commands that drive the registry instead of mapping to one operation.
pub const DRIVERS: &[&str] = &["demo", "watch", "schema", "mcp", "serve", "completions"];

/// The clap command tree (for the help reference and completions).
pub fn command() -> clap::Command {
    Cli::command()
}

/// What a command produced: human text, the JSON value, a note for stderr, and the
/// verdict its exit code follows.
#[derive(Debug)]
pub struct Output {
    pub human: String,
    pub json: serde_json::Value,
    /// Printed to stderr in human mode (the JSON carries the same facts).
    pub note: Option<String>,
    pub verdict: Verdict,
    /// An advisory verdict exits 11: `watch` ran it, or `handover --resolve` (whose
    /// moved answers a script must tell from `unchanged`).
    pub watching: bool,
}

impl Output {
    /// An operation's result as its [`Report`] renders it.
    pub fn report<R: Report>(result: &R) -> Output {
        Output {
            human: result.text(),
            json: serde_json::to_value(result).expect("results serialise"),
            note: result.note(),
            verdict: result.verdict(),
            watching: false,
        }
    }

    /// An operation's result as the registry returned it.
    pub fn invoked(invoked: Invoked) -> Output {
        Output {
            human: invoked.text,
            json: invoked.value,
            note: invoked.note,
            verdict: invoked.verdict,
            watching: false,
        }
    }

    fn code(&self) -> u8 {
        exit::for_verdict(self.verdict, self.watching)
    }
}

/// Runs the operation `name` on `request` through its registry entry, as MCP and HTTP run
/// it (the timing phase, the initialised check: `ops::Operation::around`): the one call
/// path. A command only builds the request from its arguments and prints the result.
pub(crate) fn call<Req: 'static>(ctx: &Ctx, name: &str, request: Req) -> Result<Output, Error> {
    Ok(Output::invoked(
        Registry::shared().entry(name).report(ctx, request)?,
    ))
}

/// Everything on stdin (nothing when stdin is a terminal): refused over
/// [`INPUT_LIMIT`](crate::model::input::INPUT_LIMIT) bytes (`input.size`, without reading
/// the rest) and when it is not UTF-8 (`input.utf8`).
fn read_stdin() -> Result<String, Error> {
    use std::io::{IsTerminal, Read};
    let limit = crate::model::input::INPUT_LIMIT;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(String::new());
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| crate::store::StoreError::io(std::path::Path::new("stdin"), e))?;
    if bytes.len() > limit {
        return Err(crate::model::input::TooLarge {
            what: "stdin".into(),
            bytes: bytes.len(),
            limit,
        }
        .into());
    }
    String::from_utf8(bytes).map_err(|e| {
        UsageError::NotUtf8 {
            what: "stdin".into(),
            message: e.utf8_error().to_string(),
        }
        .into()
    })
}

/// Everything on stdin for a hook, which never refuses its caller: bytes that are not
/// UTF-8 are replaced (U+FFFD) and said (`true`), an unreadable stdin is empty.
fn read_stdin_lossy() -> (String, bool) {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return (String::new(), false);
    }
    let mut bytes = Vec::new();
    let _ = stdin.lock().read_to_end(&mut bytes);
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// The directory the command runs in: `-C`, else the current one.
fn directory(cli: &Cli) -> Result<PathBuf, Error> {
    match &cli.directory {
        Some(d) => Ok(d.clone()),
        None => std::env::current_dir()
            .map_err(|e| crate::store::StoreError::io(std::path::Path::new("."), e).into()),
    }
}

/// Opens the repository the command runs in.
fn open_ctx(cli: &Cli) -> Result<Ctx, Error> {
    let clock = Clock::from_env()?;
    Ctx::open(&directory(cli)?, clock)
}

fn run(cli: &Cli) -> Result<Output, Error> {
    match &cli.command {
        Command::Init(args) => init::run(&open_ctx(cli)?, args),
        Command::Session(cmd) => session::run(&open_ctx(cli)?, cmd),
        Command::Decision(args) => decision::run(&open_ctx(cli)?, args, &directory(cli)?),
        Command::Question(args) => question::run(&open_ctx(cli)?, args, &directory(cli)?),
        Command::Checkpoint(args) => checkpoint::run(&open_ctx(cli)?, args, &directory(cli)?),
        Command::History(args) => history::run(&open_ctx(cli)?, args),
        Command::Worktrees(args) => worktrees::run(&open_ctx(cli)?, args),
        Command::Briefing(args) => briefing::run(&open_ctx(cli)?, args),
        Command::Context(args) => context::run(&open_ctx(cli)?, args),
        Command::Recall(args) => recall::run(&open_ctx(cli)?, args, &directory(cli)?),
        Command::Show(args) => recall::run_show(&open_ctx(cli)?, args),
        Command::Task(cmd) => task::run(&open_ctx(cli)?, cmd),
        Command::Intent(cmd) => intent::run(&open_ctx(cli)?, cmd),
        Command::Plan(cmd) => plan::run(&open_ctx(cli)?, cmd),
        Command::Handover(args) => handover::run(&open_ctx(cli)?, args),
        Command::Reasoning(cmd) => reasoning::run(&open_ctx(cli)?, cmd),
        Command::Knowledge(cmd) => knowledge::run(&open_ctx(cli)?, cmd, &directory(cli)?),
        Command::Journal(cmd) => journal::run(&open_ctx(cli)?, cmd),
        Command::Mesh(cmd) => mesh::run(&open_ctx(cli)?, cmd),
        Command::Doctor(args) => doctor::run(&open_ctx(cli)?, args),
        Command::Rules(cmd) => rules::run(&open_ctx(cli)?, cmd),
        Command::Watch(args) => watch::run(&open_ctx(cli)?, args),
        Command::Hooks(cmd) => hooks::run(&open_ctx(cli)?, cmd),
        Command::Hook(cmd) => {
            match open_ctx(cli).or_else(|e| hook::open_from_payload(cmd).ok_or(e)) {
                Ok(ctx) => hook::run(&ctx, cmd),
                // Outside a git work tree a hook has nothing to do.
                Err(_) => Ok(Output {
                    human: String::new(),
                    json: serde_json::json!({"did": "stepped-aside"}),
                    note: None,
                    verdict: Verdict::Pass,
                    watching: false,
                }),
            }
        }
        Command::Env(args) => env::run(&open_ctx(cli)?, args),
        Command::Setup(args) => setup::run(&open_ctx(cli)?, args),
        // The server opens the repository anew for every call.
        Command::Mcp(args) => mcp::run(directory(cli)?, args),
        Command::Serve(args) => serve::run(open_ctx(cli)?, args),
        Command::Schema(args) => schema::run(args),
        Command::Completions(args) => Ok(completions::run(args)),
        Command::Demo(args) => demo::run(args),
    }
}

/// Whether `--format json` was asked for, read from the raw arguments (for errors clap
/// raises before there is a `Cli`).
fn json_asked(args: &[String]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Prints a clap error: as SPEC's JSON error object on stdout when `--format json` was
/// asked for, else as clap renders it; help and version exit 0, usage errors exit 2.
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let is_usage = !matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    // Not `std::env::args()`: it panics on an argument that is not UTF-8, the very error
    // being reported here.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let args: Vec<String> = raw
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // clap says "invalid UTF-8 was detected in one or more arguments": which one, and
    // what to do about it, is said instead.
    if err.kind() == ErrorKind::InvalidUtf8
        && let Some((argument, shown)) = not_utf8_argument(&raw)
    {
        let err = Error::from(UsageError::ArgumentNotUtf8 { argument, shown });
        if never_fails(&args) {
            print_error(&err, Format::Human);
            return ExitCode::from(exit::for_failure(Class::Usage, true));
        }
        print_error(
            &err,
            if json_asked(&args) {
                Format::Json
            } else {
                Format::Human
            },
        );
        return ExitCode::from(exit::USAGE);
    }
    if is_usage && never_fails(&args) {
        // Said on stderr, whatever the format: a provider hook's stdout is its client's.
        let _ = err.print();
        return ExitCode::from(exit::for_failure(Class::Usage, true));
    }
    if is_usage && json_asked(&args) {
        let message = err.kind().to_string();
        let detail = err.to_string();
        // The error text without clap's "Usage:" and "For more information" lines,
        // joined on one line: it names what was missing or wrong.
        let first = detail
            .lines()
            .map(str::trim)
            .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .trim_start_matches("error: ")
            .to_owned();
        let first = if first.is_empty() { message } else { first };
        print_error(&Error::from(UsageError::Arguments(first)), Format::Json);
        return ExitCode::from(exit::USAGE);
    }
    let _ = err.print();
    ExitCode::from(if is_usage { exit::USAGE } else { exit::OK })
}

/// The first argument that is not UTF-8: the option it is the value of (`--file` for
/// `--file <bytes>` or `--file=<bytes>`), else its place (`argument 3`); and its bytes as
/// shown, each byte that is not UTF-8 as `\xNN`.
fn not_utf8_argument(args: &[std::ffi::OsString]) -> Option<(String, String)> {
    use std::os::unix::ffi::OsStrExt;
    let at = args.iter().position(|a| a.to_str().is_none())?;
    let bytes = args[at].as_bytes();
    let option = |prev: &std::ffi::OsString| {
        prev.to_str()
            .filter(|p| p.starts_with('-') && p.len() > 1 && !p.contains('='))
            .map(str::to_owned)
    };
    let (argument, value) = match bytes.iter().position(|b| *b == b'=') {
        Some(eq) if bytes.starts_with(b"--") => (
            String::from_utf8_lossy(&bytes[..eq]).into_owned(),
            &bytes[eq + 1..],
        ),
        _ => match at.checked_sub(1).and_then(|p| option(&args[p])) {
            Some(name) => (name, bytes),
            None => (format!("argument {at}"), bytes),
        },
    };
    let mut shown = String::new();
    for chunk in value.utf8_chunks() {
        shown.push_str(chunk.valid());
        for b in chunk.invalid() {
            shown.push_str(&format!("\\x{b:02x}"));
        }
    }
    Some((argument, shown))
}

/// The command the arguments name (`hook session-start`), read as clap reads it: global
/// options and their values skipped, each word a subcommand of the one before, up to the
/// first that is not (an argument: `decision hook compact` is `decision`).
fn command_path(args: &[String]) -> String {
    let mut command = Cli::command();
    let mut path: Vec<String> = Vec::new();
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        if arg == "--" {
            break;
        }
        if arg.starts_with('-') {
            // The global options that take their value as the next word.
            if matches!(arg.as_str(), "-C" | "--format") {
                rest.next();
            }
            continue;
        }
        let Some(sub) = command.find_subcommand(arg).cloned() else {
            break;
        };
        path.push(sub.get_name().to_owned());
        command = sub;
    }
    path.join(" ")
}

/// Whether the command the arguments name runs an operation the registry declares never
/// failing its caller (a provider hook): how its failures exit (`exit::for_failure`).
fn never_fails(args: &[String]) -> bool {
    let path = command_path(args);
    Registry::shared().by_cli(&path).any(|op| op.never_fails)
}

/// `majordomus: <what>: <why>` + `fix:` on stderr, or `{"error": {...}}` on stdout.
fn print_error(err: &Error, format: Format) {
    let report = err.report();
    let code = exit::for_class(report.class);
    match format {
        Format::Json => {
            let value = serde_json::json!({
                "error": {
                    "code": code,
                    "class": report.class,
                    "rule": report.rule,
                    "message": report.message,
                    "fix": report.fix,
                }
            });
            let mut t = serde_json::to_string_pretty(&value).expect("errors serialise");
            t.push('\n');
            let _ = std::io::stdout().lock().write_all(t.as_bytes());
        }
        Format::Human => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "majordomus: {}", report.message);
            if let Some(fix) = &report.fix {
                let _ = writeln!(stderr, "fix: {fix}");
            }
        }
    }
}

/// Whether `cli` runs an agent client's hook.
fn provider_hook(cli: &Cli) -> bool {
    matches!(
        &cli.command,
        Command::Hook(
            hook::HookCommand::SessionStart(_)
                | hook::HookCommand::SessionEnd(_)
                | hook::HookCommand::Compact(_)
                | hook::HookCommand::Prompt(_)
                | hook::HookCommand::Edit(_)
        )
    )
}

/// The command line git's post-commit hook runs on every commit, recognised without
/// clap: building clap's whole command tree costs more than the hook itself
/// (docs/PERFORMANCE.md). Any other command line goes through clap.
fn post_commit_hook(args: &[std::ffi::OsString]) -> Option<Cli> {
    match args {
        [_, hook, name] if hook == "hook" && name == "post-commit" => Some(Cli {
            format: Format::Human,
            directory: None,
            command: Command::Hook(hook::HookCommand::PostCommit),
        }),
        _ => None,
    }
}

/// The command line of a direct hook (`#!<binary> hook-script`, written by `hooks install`
/// into git's own hooks directory: no shell in front of majordomus): the kernel runs
/// `<binary> hook-script <hook file> <git's arguments>`. The hook is the file's name
/// (`post-commit`, `pre-push`, `post-rewrite`, or the same with `.legacy`, where the
/// pre-commit framework moved it, which runs it the same way).
fn direct_hook(args: &[std::ffi::OsString]) -> Option<Cli> {
    let [_, marker, file, rest @ ..] = args else {
        return None;
    };
    if marker != crate::hooks::DIRECT {
        return None;
    }
    let program = std::path::Path::new(file).file_name()?.to_str()?;
    let name = program.strip_suffix(".legacy").unwrap_or(program);
    let rest: Vec<String> = rest
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let command = match name {
        "post-commit" => hook::HookCommand::PostCommit,
        "pre-push" => hook::HookCommand::PrePush(hook::GitArgs { args: rest }),
        "post-rewrite" => hook::HookCommand::PostRewrite(hook::PostRewriteArgs {
            by: rest.into_iter().next(),
        }),
        _ => return None,
    };
    Some(Cli {
        format: Format::Human,
        directory: None,
        command: Command::Hook(command),
    })
}

/// Parses the command line, runs the command, prints its output and returns its exit code.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = match post_commit_hook(&args).or_else(|| direct_hook(&args)) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(args),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    match run(&cli) {
        Ok(output) => {
            let text = match cli.format {
                Format::Human => output.human.clone(),
                Format::Json => {
                    let mut t =
                        serde_json::to_string_pretty(&output.json).expect("outputs serialise");
                    t.push('\n');
                    t
                }
            };
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            // A provider hook's note (a payload it could not read) is said on stderr in
            // either format: its stdout is what its client reads.
            if let Some(note) = &output.note
                && (cli.format == Format::Human || provider_hook(&cli))
            {
                let _ = writeln!(std::io::stderr(), "{note}");
            }
            ExitCode::from(output.code())
        }
        Err(err) => {
            let args: Vec<String> = std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let never_fails = never_fails(&args);
            // A provider hook's failure is said on stderr whatever the format: its stdout
            // is what its client reads.
            print_error(
                &err,
                if never_fails {
                    Format::Human
                } else {
                    cli.format
                },
            );
            ExitCode::from(exit::for_failure(err.class(), never_fails))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_post_commit_command_line_reads_as_clap_reads_it() {
        let args: Vec<std::ffi::OsString> = ["majordomus", "hook", "post-commit"]
            .map(Into::into)
            .to_vec();
        let fast = post_commit_hook(&args).expect("recognised");
        let clap = Cli::try_parse_from(&args).expect("parses");
        assert_eq!(format!("{fast:?}"), format!("{clap:?}"));
        for other in [
            vec!["majordomus", "hook", "post-commit", "--bogus"],
            vec!["majordomus", "--format", "json", "hook", "post-commit"],
            vec!["majordomus", "hook", "pre-push"],
        ] {
            let args: Vec<std::ffi::OsString> = other.iter().map(Into::into).collect();
            assert!(post_commit_hook(&args).is_none(), "{other:?}");
        }
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;

    fn path(args: &[&str]) -> String {
        let args: Vec<String> = std::iter::once("majordomus")
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect();
        command_path(&args)
    }

    #[test]
    fn the_command_path_is_read_as_clap_reads_it() {
        assert_eq!(path(&["hook", "compact", "--bogus"]), "hook compact");
        assert_eq!(
            path(&["--format", "json", "-C", "hook", "hook", "session-start"]),
            "hook session-start"
        );
        assert_eq!(path(&["decision", "hook", "compact"]), "decision");
        assert_eq!(
            path(&["question", "resolve", "q-1", "yes"]),
            "question resolve"
        );
        assert_eq!(path(&["rules", "vendor", "update"]), "rules vendor update");
        assert_eq!(path(&["hook-script", "/x/.git/hooks/pre-push"]), "");
    }

    #[test]
    fn only_the_provider_hooks_never_fail() {
        let never = |args: &[&str]| {
            let args: Vec<String> = std::iter::once("majordomus")
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect();
            never_fails(&args)
        };
        for hook in ["session-start", "session-end", "compact"] {
            assert!(never(&["hook", hook, "--bogus"]), "{hook}");
        }
        for other in [
            &["decision", "hook", "compact"][..],
            &["hook", "pre-push"][..],
            &["hook", "post-commit", "--bogus"][..],
            &["session", "start"][..],
            &["knowledge", "derive"][..],
        ] {
            assert!(!never(other), "{other:?}");
        }
        assert_eq!(exit::for_failure(Class::Usage, true), exit::OK);
        assert_eq!(exit::for_failure(Class::Usage, false), exit::USAGE);
        assert_eq!(exit::for_failure(Class::Refused, false), exit::REFUSED);
        assert_eq!(exit::for_failure(Class::Failed, true), exit::OK);
    }
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    /// A help text's first paragraph on one line, without its final period (clap keeps a
    /// verbatim doc comment's breaks, and drops the period of a plain one).
    fn first_paragraph(text: &str) -> String {
        text.split("\n\n")
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches('.')
            .to_owned()
    }

    /// One summary per operation: the about of the command that runs it is its registry
    /// summary. A command that runs a second operation behind a flag (`session context
    /// --path`, `handover --resolve`, `reasoning plan --assessment`) says that one's
    /// summary as the flag's help.
    #[test]
    fn every_command_says_its_operation_summary() {
        let registry = Registry::standard();
        let mut primary = std::collections::BTreeSet::new();
        for op in registry.iter() {
            let mut command = Cli::command();
            for word in op.cli.split(' ') {
                command = command
                    .find_subcommand(word)
                    .unwrap_or_else(|| panic!("{}: no command `{}`", op.name, op.cli))
                    .clone();
            }
            if primary.insert(op.cli) {
                let about = command
                    .get_about()
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                assert_eq!(
                    first_paragraph(&about),
                    op.summary.trim_end_matches('.'),
                    "`majordomus {}` does not say the summary of {}",
                    op.cli,
                    op.name
                );
            } else {
                assert!(
                    command
                        .get_arguments()
                        .any(|a| a
                            .get_help()
                            .is_some_and(|h| first_paragraph(&h.to_string())
                                == op.summary.trim_end_matches('.'))),
                    "no flag of `majordomus {}` says the summary of {}: {:?}",
                    op.cli,
                    op.name,
                    op.summary
                );
            }
        }
    }
}
