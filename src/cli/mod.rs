//! The command-line surface: clap arguments, one file per command, rendering of human and
//! JSON output, and the one mapping of errors to exit codes (`error.rs`).

mod briefing;
mod checkpoint;
mod context;
mod decision;
mod demo;
mod doctor;
mod env;
mod error;
mod history;
mod hooks;
mod init;
mod knowledge;
mod question;
mod session;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::{Clock, Ctx};
pub use error::CliError;

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
    Briefing(briefing::BriefingArgs),
    Context(context::ContextArgs),
    #[command(subcommand)]
    Knowledge(knowledge::KnowledgeCommand),
    Doctor(doctor::DoctorArgs),
    Watch(doctor::WatchArgs),
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    #[command(subcommand)]
    Hook(hooks::HookCommand),
    Env(env::EnvArgs),
    Demo(demo::DemoArgs),
}

/// What a command produced: human text and the JSON value, and its exit code.
#[derive(Debug)]
pub struct Output {
    pub human: String,
    pub json: serde_json::Value,
    /// Printed to stderr in human mode (the JSON carries the same facts).
    pub note: Option<String>,
    pub code: u8,
}

impl Output {
    pub fn ok(human: String, json: impl serde::Serialize) -> Output {
        Output {
            human,
            json: serde_json::to_value(json).expect("outputs serialise"),
            note: None,
            code: 0,
        }
    }

    pub fn with_note(mut self, note: Option<String>) -> Output {
        self.note = note;
        self
    }
}

/// Everything on stdin; nothing when stdin is a terminal or unreadable.
fn read_stdin() -> String {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return String::new();
    }
    let mut text = String::new();
    let _ = stdin.lock().read_to_string(&mut text);
    text
}

/// Opens the repository the command runs in.
fn open_ctx(cli: &Cli) -> Result<Ctx, CliError> {
    let clock = Clock::from_env().map_err(CliError::Usage)?;
    let dir = match &cli.directory {
        Some(d) => d.clone(),
        None => {
            std::env::current_dir().map_err(|e| CliError::Io(format!("current directory: {e}")))?
        }
    };
    Ok(Ctx::open(&dir, clock)?)
}

fn run(cli: &Cli) -> Result<Output, CliError> {
    match &cli.command {
        Command::Init(args) => init::run(&open_ctx(cli)?, args),
        Command::Session(cmd) => session::run(&open_ctx(cli)?, cmd),
        Command::Decision(args) => decision::run(&open_ctx(cli)?, args),
        Command::Question(args) => question::run(&open_ctx(cli)?, args),
        Command::Checkpoint(args) => checkpoint::run(&open_ctx(cli)?, args),
        Command::History(args) => history::run(&open_ctx(cli)?, args),
        Command::Briefing(args) => briefing::run(&open_ctx(cli)?, args),
        Command::Context(args) => context::run(&open_ctx(cli)?, args),
        Command::Knowledge(cmd) => knowledge::run(&open_ctx(cli)?, cmd),
        Command::Doctor(args) => doctor::run(&open_ctx(cli)?, args),
        Command::Watch(args) => doctor::watch(&open_ctx(cli)?, args),
        Command::Hooks(cmd) => hooks::run_hooks(&open_ctx(cli)?, cmd),
        Command::Hook(cmd) => match open_ctx(cli) {
            Ok(ctx) => hooks::run_hook(&ctx, cmd),
            // Outside a git work tree a hook has nothing to do.
            Err(_) => Ok(Output::ok(
                String::new(),
                serde_json::json!({"did": "stepped-aside"}),
            )),
        },
        Command::Env(args) => env::run(&open_ctx(cli)?, args),
        Command::Demo(args) => demo::run(args, cli.format),
    }
}

/// Prints a clap error: as SPEC's JSON error object on stdout when `--format json` was
/// asked for, else as clap renders it; help and version exit 0, usage errors exit 2.
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let is_usage = !matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    let args: Vec<String> = std::env::args().collect();
    let json = args
        .windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json");
    // A provider hook never blocks its provider, not even when it is wired wrongly.
    let provider_hook = args.iter().any(|a| a == "hook")
        && args
            .iter()
            .any(|a| matches!(a.as_str(), "session-start" | "session-end" | "compact"));
    if is_usage && provider_hook {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    if is_usage && json {
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
        let value = serde_json::json!({
            "error": {"code": 2, "rule": "usage", "message": first, "fix": "majordomus --help"}
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).expect("errors serialise")
        );
        return ExitCode::from(2);
    }
    let _ = err.print();
    ExitCode::from(if is_usage { 2 } else { 0 })
}

/// Parses the command line, runs the command, prints its output and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    let result = run(&cli);
    let mut stdout = std::io::stdout().lock();
    match result {
        Ok(output) => {
            let text = match cli.format {
                Format::Human => output.human,
                Format::Json => {
                    let mut t =
                        serde_json::to_string_pretty(&output.json).expect("outputs serialise");
                    t.push('\n');
                    t
                }
            };
            let _ = stdout.write_all(text.as_bytes());
            if let (Format::Human, Some(note)) = (cli.format, output.note) {
                let _ = writeln!(std::io::stderr(), "{note}");
            }
            ExitCode::from(output.code)
        }
        Err(err) => {
            let code = err.exit_code();
            match cli.format {
                Format::Json => {
                    let mut t =
                        serde_json::to_string_pretty(&err.to_json()).expect("errors serialise");
                    t.push('\n');
                    let _ = stdout.write_all(t.as_bytes());
                }
                Format::Human => {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "majordomus: {err}");
                    if let Some(fix) = err.fix() {
                        let _ = writeln!(stderr, "fix: {fix}");
                    }
                }
            }
            ExitCode::from(code)
        }
    }
}
