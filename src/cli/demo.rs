//! `majordomus demo`: a full episode in a throwaway repository, through the library,
//! rendered exactly as the commands render it.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Format, Output};
use crate::git::Repo;
use crate::{Clock, Ctx};

/// Run a full episode in a throwaway repository and show each step.
///
/// Creates a git repository in a temporary directory, initialises majordomus, opens an
/// episode, records a decision, asks and answers a question, commits, checkpoints, shows
/// the derived working context and closes the episode, ending with its record. Nothing
/// outside the temporary directory is touched, and it is removed afterwards unless
/// `--keep` is given. No network.
///
/// Examples:
///   majordomus demo
///   majordomus demo --keep      # keep the repository to explore it
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the temporary repository and print its path.
    #[arg(long)]
    pub keep: bool,
}

struct Step {
    title: &'static str,
    command: String,
    output: Output,
}

const PARSER: &str = "//! A tiny parser.\n\npub fn parse(input: &str) -> Vec<&str> {\n    input.split_whitespace().collect()\n}\n";

pub fn run(args: &DemoArgs, _format: Format) -> Result<Output, CliError> {
    let clock = Clock::from_env().map_err(CliError::Usage)?;
    let dir = tempfile::Builder::new()
        .prefix("majordomus-demo-")
        .tempdir()
        .map_err(|e| CliError::Io(format!("temporary directory: {e}")))?;
    let root = dir.path().to_owned();
    let repo = Repo::init(&root)?;
    // Commits are dated just before now so the record reads in order.
    let t0 = clock.now().unix_timestamp() - 600;
    repo.commit_files(
        &[("README.md", b"# A demo project\n".as_slice())],
        "Initial commit",
        t0,
    )?;
    drop(repo);
    let ctx = Ctx::open(&root, clock)?;
    let mut steps = Vec::new();

    steps.push(Step {
        title: "Set up majordomus in the repository",
        command: "majordomus init".into(),
        output: super::init::run(&ctx, &super::init::InitArgs {})?,
    });
    let mut skeleton: Vec<(String, Vec<u8>)> = Vec::new();
    for rel in crate::store::skeleton::FILES
        .iter()
        .map(|(p, _)| *p)
        .chain([".gitignore"])
    {
        let bytes =
            std::fs::read(root.join(rel)).map_err(|e| CliError::Io(format!("{rel}: {e}")))?;
        skeleton.push((rel.to_owned(), bytes));
    }
    let files: Vec<(&str, &[u8])> = skeleton
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let sha = ctx.repo.commit_files(&files, "majordomus: init", t0 + 60)?;
    steps.push(Step {
        title: "Commit the tracked half of the store (.ai/repo and .gitignore)",
        command: "git add .ai .gitignore && git commit -m \"majordomus: init\"".into(),
        output: Output::ok(
            format!("[{}] majordomus: init\n", &sha[..12]),
            serde_json::json!({ "commit": sha }),
        ),
    });

    steps.push(Step {
        title: "Open an episode: HEAD, branch and time are recorded, the opening snapshot written",
        command: "majordomus session start --provider demo".into(),
        output: super::session::run(
            &ctx,
            &super::session::SessionCommand::Start(super::session::StartArgs {
                provider: Some("demo".into()),
                replace: false,
            }),
        )?,
    });
    let decision = "Tokens are split on Unicode whitespace; no quoting rules";
    steps.push(Step {
        title: "Record a decision",
        command: format!("majordomus decision \"{decision}\""),
        output: super::decision::run(
            &ctx,
            &super::decision::DecisionArgs {
                text: decision.into(),
                task: None,
            },
        )?,
    });
    let question = "Should empty input yield an empty list or an error?";
    let asked = super::question::run(
        &ctx,
        &super::question::QuestionArgs {
            text: Some(question.into()),
            command: None,
        },
    )?;
    let qid = asked.human.trim().to_owned();
    steps.push(Step {
        title: "Ask a question (stdout is its id)",
        command: format!("majordomus question \"{question}\""),
        output: asked,
    });
    let answer = "An empty list: callers iterate, nobody matches on errors";
    steps.push(Step {
        title: "Answer it",
        command: format!("majordomus question resolve {qid} \"{answer}\""),
        output: super::question::run(
            &ctx,
            &super::question::QuestionArgs {
                text: None,
                command: Some(super::question::QuestionCommand::Resolve(
                    super::question::ResolveArgs {
                        id: qid.clone(),
                        answer: answer.into(),
                    },
                )),
            },
        )?,
    });
    let sha = ctx.repo.commit_files(
        &[("src/parser.rs", PARSER.as_bytes())],
        "Add a whitespace tokenizer",
        t0 + 600,
    )?;
    steps.push(Step {
        title: "Work happens: a commit",
        command: "git add src/parser.rs && git commit -m \"Add a whitespace tokenizer\"".into(),
        output: Output::ok(
            format!("[{}] Add a whitespace tokenizer\n", &sha[..12]),
            serde_json::json!({ "commit": sha }),
        ),
    });
    let checkpoint = "Tokenizer committed; error reporting is next";
    steps.push(Step {
        title: "Record a checkpoint",
        command: format!("majordomus checkpoint \"{checkpoint}\""),
        output: super::checkpoint::run(
            &ctx,
            &super::checkpoint::CheckpointArgs {
                text: checkpoint.into(),
            },
        )?,
    });
    steps.push(Step {
        title: "Read the working context: composed now from the episode, git and the ledger",
        command: "majordomus session context".into(),
        output: super::session::run(
            &ctx,
            &super::session::SessionCommand::Context(super::session::ContextArgs { path: false }),
        )?,
    });
    let summary = "Added a whitespace tokenizer and settled how empty input behaves.";
    let closed = crate::session::close(&ctx, Some(summary))?;
    steps.push(Step {
        title: "Close the episode: its record is composed, never empty, nothing invented",
        command: format!("echo \"{summary}\" | majordomus session close"),
        output: Output::ok(
            format!(
                "closed episode {}\nrecord: {}\n\n{}",
                closed.episode, closed.path, closed.text
            ),
            &closed,
        ),
    });

    let location = if args.keep {
        let kept = dir.keep();
        format!("kept: {}", kept.display())
    } else {
        drop(dir);
        "the temporary repository has been removed (use --keep to explore it)".to_owned()
    };
    let mut human = format!("majordomus demo: a full episode in {}\n", root.display());
    for (n, step) in steps.iter().enumerate() {
        let _ = write!(
            human,
            "\n== {}. {} ==\n$ {}\n{}",
            n + 1,
            step.title,
            step.command,
            step.output.human
        );
        if let Some(note) = &step.output.note {
            let _ = writeln!(human, "{note}");
        }
    }
    let _ = writeln!(human, "\n{location}");
    let json = serde_json::json!({
        "directory": root.display().to_string(),
        "kept": args.keep,
        "steps": steps.iter().map(|s| serde_json::json!({
            "title": s.title,
            "command": s.command,
            "output": s.output.json,
        })).collect::<Vec<_>>(),
    });
    Ok(Output {
        human,
        json,
        note: None,
        code: 0,
    })
}
