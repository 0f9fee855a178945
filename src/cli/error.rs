//! The one mapping of errors to SPEC §0 exit codes and their rendering.

use crate::Error;
use crate::model::policy::PolicyError;

/// Exit codes (SPEC §0).
pub mod code {
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const REFUSED: u8 = 3;
    pub const BLOCKING: u8 = 10;
    pub const ADVISORY: u8 = 11;
}

/// Anything a command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Lib(#[from] Error),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            // A filter value that names nothing is a bad argument, not a rule saying no.
            CliError::Lib(Error::Refused(
                crate::Refusal::UnknownEvent { .. } | crate::Refusal::InvalidSince { .. },
            )) => code::USAGE,
            CliError::Lib(Error::Refused(_)) => code::REFUSED,
            CliError::Lib(Error::Git(crate::git::GitError::UnknownBranch { .. })) => code::USAGE,
            CliError::Lib(Error::Policy(PolicyError::Malformed { .. })) => code::ERROR,
            CliError::Lib(Error::Policy(_)) => code::REFUSED,
            CliError::Lib(Error::Git(_) | Error::Store(_)) => code::ERROR,
            CliError::Usage(_) => code::USAGE,
            CliError::Io(_) => code::ERROR,
        }
    }

    /// The rule that refused, or a kind of failure.
    pub fn rule(&self) -> &'static str {
        match self {
            CliError::Lib(Error::Refused(r)) => r.rule(),
            CliError::Lib(Error::Policy(p)) => p.rule().unwrap_or("policy.readable"),
            CliError::Lib(Error::Git(crate::git::GitError::UnknownBranch { .. })) => "usage",
            CliError::Lib(Error::Git(_)) => "git",
            CliError::Lib(Error::Store(_)) => "io",
            CliError::Usage(_) => "usage",
            CliError::Io(_) => "io",
        }
    }

    pub fn fix(&self) -> Option<String> {
        match self {
            CliError::Lib(Error::Refused(r)) => r.fix(),
            CliError::Lib(Error::Policy(p)) => p.fix(),
            CliError::Lib(Error::Git(crate::git::GitError::NotARepository { .. })) => {
                Some("run inside a git work tree, or `git init` one".into())
            }
            CliError::Lib(Error::Git(crate::git::GitError::UnknownBranch { .. })) => {
                Some("git branch --list".into())
            }
            _ => None,
        }
    }

    /// `{"error": {"code", "rule", "message", "fix"}}` for `--format json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": {
                "code": self.exit_code(),
                "rule": self.rule(),
                "message": self.to_string(),
                "fix": self.fix(),
            }
        })
    }
}

impl From<crate::store::StoreError> for CliError {
    fn from(e: crate::store::StoreError) -> Self {
        CliError::Lib(e.into())
    }
}

impl From<crate::git::GitError> for CliError {
    fn from(e: crate::git::GitError) -> Self {
        CliError::Lib(e.into())
    }
}
