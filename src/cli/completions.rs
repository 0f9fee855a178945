//! `majordomus completions <shell>`: a driver that prints a shell completion script.

use clap::Args;
use clap_complete::Shell;

use super::Output;
use crate::model::Verdict;

/// Print the completion script for a shell.
///
/// Examples:
///   majordomus completions bash > ~/.local/share/bash-completion/completions/majordomus
///   majordomus completions zsh > ~/.zfunc/_majordomus
///   majordomus completions fish > ~/.config/fish/completions/majordomus.fish
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> Output {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::command(), "majordomus", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    Output {
        json: serde_json::json!({ "shell": args.shell.to_string(), "script": script }),
        human: script,
        note: None,
        verdict: Verdict::Pass,
        watching: false,
    }
}
