//! Where everything lives under a repository's `.ai/` (SPEC §1).

use std::path::{Path, PathBuf};

/// Paths of one repository's store, rooted at its work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Layout { root: root.into() }
    }

    /// The work tree root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root, with `/` separators, for messages and records.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    pub fn repo_dir(&self) -> PathBuf {
        self.root.join(".ai/repo")
    }
    pub fn policy(&self) -> PathBuf {
        self.root.join(".ai/repo/policy.yaml")
    }
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join(".ai/repo/sessions")
    }
    pub fn session_record(&self, episode: &str) -> PathBuf {
        self.sessions_dir().join(format!("{episode}.md"))
    }
    pub fn knowledge_dir(&self) -> PathBuf {
        self.root.join(".ai/repo/knowledge")
    }
    pub fn candidates_dir(&self) -> PathBuf {
        self.knowledge_dir().join("candidates")
    }
    pub fn curated_dir(&self) -> PathBuf {
        self.knowledge_dir().join("curated")
    }
    pub fn local_dir(&self) -> PathBuf {
        self.root.join(".ai/local")
    }
    pub fn ledger(&self) -> PathBuf {
        self.root.join(".ai/local/ledger.jsonl")
    }
    pub fn snapshot(&self, episode: &str) -> PathBuf {
        self.root
            .join(".ai/local/session-contexts")
            .join(format!("{episode}.md"))
    }
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".ai/local/state")
    }
    pub fn episode_state(&self) -> PathBuf {
        self.state_dir().join("episode.json")
    }
    /// The ledger index's manifest: derived from the ledger, rebuilt when missing.
    pub fn ledger_index(&self) -> PathBuf {
        self.state_dir().join("ledger-index.json")
    }
    /// The ledger index's segment files (and the lock its writers take).
    pub fn ledger_index_dir(&self) -> PathBuf {
        self.state_dir().join("ledger-index")
    }
    pub fn handovers_dir(&self) -> PathBuf {
        self.state_dir().join("handovers")
    }
    pub fn outbox_dir(&self) -> PathBuf {
        self.state_dir().join("outbox")
    }
    pub fn gitignore(&self) -> PathBuf {
        self.root.join(".gitignore")
    }

    /// A repository is initialised when its policy file exists.
    pub fn is_initialised(&self) -> bool {
        self.policy().is_file()
    }
}
