//! `majordomus demo`: a full episode in a throwaway repository, through the library,
//! rendered as the commands render it.

use std::fmt::Write as _;

use clap::Args;

use super::{CliError, Format, Output};
use crate::git::Repo;
use crate::{Clock, Ctx};

/// Run a full episode in a throwaway repository and show each step.
///
/// Creates a git repository in a temporary directory, initialises majordomus, opens an
/// episode, records a decision, asks and answers a question, commits, checkpoints, shows
/// the derived working context, closes the episode (its record, its derived knowledge
/// candidates), promotes a candidate, and runs `knowledge check` and `doctor`. Nothing
/// outside the temporary directory is touched, and it is removed afterwards unless
/// `--keep` is given. No network.
///
/// Examples:
///   majordomus demo
///   majordomus demo --keep      # keep the repository to explore it
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
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
        title: "Close the episode: its record is composed (never empty, nothing invented), then knowledge is derived",
        command: format!("echo \"{summary}\" | majordomus session close"),
        output: Output::ok(super::session::render_closed(&closed), &closed),
    });
    let knowledge = |cmd: super::knowledge::KnowledgeCommand| super::knowledge::run(&ctx, &cmd);
    steps.push(Step {
        title: "The derived candidates await a person's review",
        command: "majordomus knowledge candidates".into(),
        output: knowledge(super::knowledge::KnowledgeCommand::Candidates(
            super::knowledge::CandidatesArgs { branch: None },
        ))?,
    });
    steps.push(Step {
        title: "Derivation is deterministic: a rerun over the same evidence writes nothing",
        command: format!("majordomus knowledge derive --episode {}", closed.episode),
        output: knowledge(super::knowledge::KnowledgeCommand::Derive(
            super::knowledge::DeriveArgs {
                episode: Some(closed.episode.clone()),
                dry_run: false,
            },
        ))?,
    });
    let listing = crate::knowledge::candidates(&ctx, None)?;
    if let Some(decided) = listing
        .candidates
        .iter()
        .find(|c| c.class.name() == "convention")
    {
        let evidence = "src/parser.rs: parse() calls str::split_whitespace";
        let promoted = crate::knowledge::promote(&ctx, &decided.id, None, evidence)?;
        steps.push(Step {
            title: "A person promotes a candidate, with evidence",
            command: format!(
                "echo \"{evidence}\" | majordomus knowledge promote {}",
                decided.id
            ),
            output: Output::ok(
                format!("promoted {} -> {} (verified)\n", promoted.id, promoted.path),
                &promoted,
            ),
        });
    }
    let tracked = files_under(&root, ".ai/repo")?;
    let files: Vec<(&str, &[u8])> = tracked
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let sha =
        ctx.repo
            .commit_files(&files, "majordomus: session record and knowledge", t0 + 660)?;
    steps.push(Step {
        title: "Commit the record and the knowledge so they travel with the repository",
        command: "git add .ai && git commit -m \"majordomus: session record and knowledge\"".into(),
        output: Output::ok(
            format!(
                "[{}] majordomus: session record and knowledge\n",
                &sha[..12]
            ),
            serde_json::json!({ "commit": sha }),
        ),
    });
    steps.push(Step {
        title: "Every record is checked: schema, ids, provenance, every reference resolves",
        command: "majordomus knowledge check".into(),
        output: knowledge(super::knowledge::KnowledgeCommand::Check(
            super::knowledge::CheckArgs {},
        ))?,
    });
    steps.push(Step {
        title: "doctor runs the whole rule package",
        command: "majordomus doctor".into(),
        output: super::doctor::run(&ctx, &super::doctor::DoctorArgs {})?,
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

/// Every file under `rel` (relative to `root`), as `(path, bytes)`, sorted.
fn files_under(root: &std::path::Path, rel: &str) -> Result<Vec<(String, Vec<u8>)>, CliError> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(rel)];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| CliError::Io(format!("{}: {e}", dir.display())))?;
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path)
                    .map_err(|e| CliError::Io(format!("{}: {e}", path.display())))?;
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, bytes));
            }
        }
    }
    out.sort();
    Ok(out)
}
