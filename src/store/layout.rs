//! Where everything lives under a repository's `.ai/` (SPEC §1).

use std::path::{Path, PathBuf};

use super::StoreError;
use crate::model::ids::IdKind;

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
    /// `.ai/repo/sessions/<episode>.md`; refuses an id that is not an episode id.
    pub fn session_record(&self, episode: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Episode, episode)?;
        Ok(self.sessions_dir().join(format!("{episode}.md")))
    }
    /// `<dir>/<id>.md` for a knowledge record; refuses an id that is not one.
    pub fn record_in(&self, dir: &Path, id: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Knowledge, id)?;
        Ok(dir.join(format!("{id}.md")))
    }
    /// `<dir>/<episode>.md` for an episode's file (outbox record, handover).
    pub fn episode_file_in(&self, dir: &Path, episode: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Episode, episode)?;
        Ok(dir.join(format!("{episode}.md")))
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
    /// `.ai/local/session-contexts/<episode>.md`; refuses an id that is not an episode id.
    pub fn snapshot(&self, episode: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Episode, episode)?;
        Ok(self
            .root
            .join(".ai/local/session-contexts")
            .join(format!("{episode}.md")))
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
    /// The recall index (SPEC §11): derived from the memory, rebuilt when missing.
    pub fn recall_index(&self) -> PathBuf {
        self.state_dir().join("recall.sqlite")
    }
    /// What the last `hook compact` saw (episode, ledger `seq`, work state): the next one
    /// does nothing when all of it is the same.
    pub fn compact_mark(&self) -> PathBuf {
        self.state_dir().join("compact.json")
    }
    pub fn handovers_dir(&self) -> PathBuf {
        self.state_dir().join("handovers")
    }
    /// `.ai/local/state/handovers/<episode>.md`; refuses an id that is not an episode id.
    pub fn handover(&self, episode: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Episode, episode)?;
        Ok(self.handovers_dir().join(format!("{episode}.md")))
    }
    /// `.ai/local/state/reasoning/`: one folder per task (or `_episode-<id>`).
    pub fn reasoning_dir(&self) -> PathBuf {
        self.state_dir().join("reasoning")
    }
    /// `.ai/repo/rules/vendor/majordomus.yaml`: the vendored copy of the standard package.
    pub fn vendored_rules(&self) -> PathBuf {
        self.root
            .join(".ai/repo/rules/vendor")
            .join(crate::model::rules::STANDARD_FILE)
    }
    /// `.ai/repo/rules/project/`: the project's own rule files (`*.yaml`).
    pub fn project_rules_dir(&self) -> PathBuf {
        self.root.join(".ai/repo/rules/project")
    }
    pub fn intents_dir(&self) -> PathBuf {
        self.root.join(".ai/repo/intents")
    }
    pub fn tasks_dir(&self) -> PathBuf {
        self.state_dir().join("tasks")
    }
    /// `.ai/local/state/tasks/<task>.json`; refuses an id that is not a task id.
    pub fn task_record(&self, task: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Task, task)?;
        Ok(self.tasks_dir().join(format!("{task}.json")))
    }
    /// `.ai/local/state/completed/<task>.md`; refuses an id that is not a task id.
    pub fn completed_note(&self, task: &str) -> Result<PathBuf, StoreError> {
        StoreError::check_id(IdKind::Task, task)?;
        Ok(self
            .state_dir()
            .join("completed")
            .join(format!("{task}.md")))
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
