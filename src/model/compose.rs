//! Composition of an episode's working context and of its closed session record
//! (SPEC §3.1, §3.2): derived from the episode record, git and the ledger window, never
//! invented. Each empty authored kind says so and names the command that would fill it.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::episode::{EpisodeState, GitSinceOpen};
use super::event::{Outcome, TaskStatus};
use super::window::EpisodeWindow;

/// Hints naming the command that fills an empty kind; one place so context and record agree.
pub const CMD_DECISION: &str = "majordomus decision \"<text>\"";
pub const CMD_QUESTION: &str = "majordomus question \"<text>\"";
pub const CMD_CHECKPOINT: &str = "majordomus checkpoint \"<text>\"";
pub const HINT_SUMMARY: &str =
    "pipe one into the close, e.g. `echo \"<what this episode did>\" | majordomus session close`";
pub const HINT_COMMIT: &str = "commits made with `git commit` while the episode is open show here";

/// Whether the text is read while the episode runs (context) or after it closed (record);
/// an empty kind names its command as something to do now, or as what would have filled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tense {
    Now,
    Closed,
}

fn empty_kind(tense: Tense, command: &str) -> String {
    match tense {
        Tense::Now => format!("- none in this episode yet; `{command}` records one"),
        Tense::Closed => {
            format!("- none recorded in this episode; `{command}` would have recorded one")
        }
    }
}

/// Authored text on one bullet: continuation lines are indented so a line of the text
/// can never pass for a heading or a bullet of the document.
fn inline(text: &str) -> String {
    text.trim().replace('\n', "\n  ")
}

impl Tense {
    /// Authored text as this document shows it: a closed episode's record keeps it as it
    /// was said ([`inline`]); the working context, which an agent reads, quotes it as
    /// unverified data with its instruction-shaped text made inert (docs/SECURITY.md).
    fn authored(self, text: &str) -> String {
        match self {
            Tense::Closed => inline(text),
            Tense::Now => {
                let label = super::inject::Label {
                    status: "unverified",
                    ..super::inject::Label::default()
                };
                super::inject::fence(&label, text).text
            }
        }
    }
}

/// How long a list may grow: at most `max` items, the newest; the older ones are named by
/// one line with the command that lists them all (SPEC §3.2).
#[derive(Debug, Clone, Copy)]
struct Bound<'a> {
    max: usize,
    episode: &'a EpisodeState,
    git: &'a GitSinceOpen,
}

impl Bound<'_> {
    /// The newest `max` of `items` (in their order), and how many older ones are left out.
    fn newest<'t, T>(&self, items: &'t [T]) -> (&'t [T], usize) {
        let left_out = items.len().saturating_sub(self.max);
        (&items[left_out..], left_out)
    }

    /// The line naming what a list left out: `… N more: <command>`.
    fn more(&self, out: &mut String, indent: &str, left_out: usize, command: &str) {
        if left_out > 0 {
            let _ = writeln!(out, "{indent}- … {left_out} more: {command}");
        }
    }

    /// The command that lists the episode's lines of `event`.
    fn history(&self, event: &str) -> String {
        format!(
            "majordomus history --session {} --event {event}",
            self.episode.id
        )
    }

    /// The git command that lists every commit since open (git, not the ledger, is where
    /// the commits are).
    fn git_log(&self) -> String {
        match (&self.episode.head_at_open, &self.git.head) {
            (Some(open), Some(head)) => {
                format!("git log --oneline {}..{}", short(open), short(head))
            }
            (_, Some(head)) => format!("git log --oneline {}", short(head)),
            _ => "git log --oneline".to_owned(),
        }
    }

    /// The git command that lists every file the commits since open changed.
    fn git_files(&self) -> String {
        match (&self.episode.head_at_open, &self.git.head) {
            (Some(open), Some(head)) => {
                format!("git diff --name-only {} {}", short(open), short(head))
            }
            (_, Some(head)) => format!("git log --name-only --format= {}", short(head)),
            _ => "git log --name-only --format=".to_owned(),
        }
    }
}

/// A section of a closed session record; each has exactly one writer below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    Summary,
    Decisions,
    Questions,
    Checkpoints,
    Commits,
    Files,
    Tasks,
    /// What the memory put before the agent and which files its editing tools touched.
    Agent,
    Outcome,
}

impl Section {
    /// The default order (SPEC §2 `session.record_sections`).
    pub const ALL: [Section; 9] = [
        Section::Summary,
        Section::Decisions,
        Section::Questions,
        Section::Checkpoints,
        Section::Commits,
        Section::Files,
        Section::Tasks,
        Section::Agent,
        Section::Outcome,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Section::Summary => "summary",
            Section::Decisions => "decisions",
            Section::Questions => "questions",
            Section::Checkpoints => "checkpoints",
            Section::Commits => "commits",
            Section::Files => "files",
            Section::Tasks => "tasks",
            Section::Agent => "agent",
            Section::Outcome => "outcome",
        }
    }

    pub fn from_name(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }

    fn title(self) -> &'static str {
        match self {
            Section::Summary => "Summary",
            Section::Decisions => "Decisions",
            Section::Questions => "Questions",
            Section::Checkpoints => "Checkpoints",
            Section::Commits => "Commits",
            Section::Files => "Files",
            Section::Tasks => "Tasks",
            Section::Agent => "Agent",
            Section::Outcome => "Outcome",
        }
    }
}

/// Everything composition reads: the three checkable sources.
#[derive(Debug, Clone, Copy)]
pub struct EpisodeSources<'a> {
    pub episode: &'a EpisodeState,
    pub git: &'a GitSinceOpen,
    pub window: &'a EpisodeWindow,
}

/// Front matter of `.ai/repo/sessions/<episode>.md` (schema `session/v1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRecord {
    pub id: String,
    pub schema: String,
    pub provider: String,
    pub branch: Option<String>,
    pub head_at_open: Option<String>,
    pub head: Option<String>,
    pub opened: String,
    pub closed: String,
    pub commits: Vec<String>,
    pub changed_files: Vec<String>,
    pub tasks: Vec<String>,
    pub outcome: Outcome,
    /// Files the agent's editing tools touched (`agent.touched`), sorted; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub touched_files: Vec<String>,
    /// Records the memory put before the agent (`context.shown`), each once; absent when
    /// none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shown_records: usize,
    /// Of those, the verified ones (when first shown): how often verified knowledge
    /// reached a session, countable from the tracked records.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shown_verified: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub const SESSION_SCHEMA: &str = "session/v1";

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn or_unborn(head: Option<&str>) -> &str {
    head.unwrap_or("(unborn: no commit yet)")
}

fn or_detached(branch: Option<&str>) -> &str {
    branch.unwrap_or("(detached HEAD)")
}

/// The working context of the open episode, composed now; each list holds at most
/// `max_items` items (`session.record_section_max_items`), the newest.
pub fn compose_context(src: EpisodeSources<'_>, max_items: usize) -> String {
    let EpisodeSources {
        episode,
        git,
        window,
    } = src;
    let bound = Bound {
        max: max_items,
        episode,
        git,
    };
    let mut out = String::new();
    let _ = writeln!(out, "# Working context of episode {}", episode.id);
    out.push_str(
        "\nDerived now from this episode's record, git and the episode's ledger lines; \
         run again to see it change.\n",
    );
    let _ = writeln!(out, "{}", super::inject::LEGEND);

    out.push_str("\n## Episode\n");
    let _ = writeln!(out, "- provider: {}", episode.provider);
    let _ = writeln!(out, "- opened: {}", episode.opened);
    let _ = writeln!(
        out,
        "- branch at open: {}",
        or_detached(episode.branch.as_deref())
    );
    let _ = writeln!(
        out,
        "- HEAD at open: {}",
        or_unborn(episode.head_at_open.as_deref())
    );

    out.push_str("\n## Git since open\n");
    let branch_line = if git.branch == episode.branch {
        format!("{} (unchanged)", or_detached(git.branch.as_deref()))
    } else {
        format!(
            "{} (moved from {})",
            or_detached(git.branch.as_deref()),
            or_detached(episode.branch.as_deref())
        )
    };
    let _ = writeln!(out, "- branch: {branch_line}");
    let head_line = if git.head == episode.head_at_open {
        format!("{} (unchanged)", or_unborn(git.head.as_deref()))
    } else {
        or_unborn(git.head.as_deref()).to_owned()
    };
    let _ = writeln!(out, "- HEAD: {head_line}");
    write_working_tree(&mut out, git, bound);
    write_commits(&mut out, git, "- commits since open", bound);
    write_files(&mut out, git, "- files changed", bound);

    let _ = writeln!(out, "\n## Decisions ({})", window.decisions.len());
    write_decisions(&mut out, window, Tense::Now, bound);
    let open = window.open_questions().count();
    let _ = writeln!(
        out,
        "\n## Questions ({open} open, {} resolved)",
        window.questions.len() - open
    );
    write_questions(&mut out, window, Tense::Now, bound);
    let _ = writeln!(out, "\n## Checkpoints ({})", window.checkpoints.len());
    write_checkpoints(&mut out, window, Tense::Now, bound);
    let _ = writeln!(out, "\n## Tasks ({})", window.tasks.len());
    write_tasks(&mut out, window, Tense::Now, bound);
    out.push_str("\n## Agent\n");
    write_agent(&mut out, window, Tense::Now, bound);
    out
}

/// The work tree's state, with every path as `git status --porcelain` lists it; the
/// memory's own files under `.ai/` are listed and said not to count.
fn write_working_tree(out: &mut String, git: &GitSinceOpen, bound: Bound<'_>) {
    let own = git
        .working_tree
        .iter()
        .filter(|e| e.path.starts_with(".ai/"))
        .count();
    let verdict = match (git.dirty, own) {
        (true, _) => "dirty (uncommitted or untracked changes)",
        (false, 0) => "clean",
        (false, _) => "clean outside .ai/ (only files under .ai/ changed)",
    };
    if git.working_tree.is_empty() {
        let _ = writeln!(out, "- working tree: {verdict}");
        return;
    }
    let _ = writeln!(
        out,
        "- working tree: {verdict}; `git status --porcelain` lists {}:",
        git.working_tree.len()
    );
    let (entries, left_out) = bound.newest(&git.working_tree);
    for e in entries {
        let mine = if e.path.starts_with(".ai/") {
            " (under .ai/: not counted as work)"
        } else {
            ""
        };
        let _ = writeln!(out, "  - {}{mine}", e.porcelain());
    }
    bound.more(out, "  ", left_out, "git status --porcelain");
}

fn write_commits(out: &mut String, git: &GitSinceOpen, label: &str, bound: Bound<'_>) {
    if git.commits.is_empty() {
        let _ = writeln!(out, "{label}: none; {HINT_COMMIT}");
        write_elsewhere(out, "  ", git);
        return;
    }
    let _ = writeln!(out, "{label} ({}):", git.commits.len());
    let (commits, left_out) = bound.newest(&git.commits);
    for c in commits {
        let _ = writeln!(out, "  - {} {}", short(&c.id), c.subject);
    }
    bound.more(out, "  ", left_out, &bound.git_log());
    write_elsewhere(out, "  ", git);
}

/// Says how many commits since open were left out as someone else's.
fn write_elsewhere(out: &mut String, indent: &str, git: &GitSinceOpen) {
    if git.elsewhere > 0 {
        let _ = writeln!(
            out,
            "{indent}- not listed: {} commit(s) since the HEAD at open that this episode did not make (a rebase moved it onto them, or a merge brought them in)",
            git.elsewhere
        );
    }
}

fn write_files(out: &mut String, git: &GitSinceOpen, label: &str, bound: Bound<'_>) {
    if git.changed_files.is_empty() {
        let _ = writeln!(out, "{label}: none in commits since open");
        return;
    }
    let _ = writeln!(out, "{label} ({}):", git.changed_files.len());
    let (files, left_out) = bound.newest(&git.changed_files);
    for f in files {
        let _ = writeln!(out, "  - {f}");
    }
    bound.more(out, "  ", left_out, &bound.git_files());
}

fn write_decisions(out: &mut String, window: &EpisodeWindow, tense: Tense, bound: Bound<'_>) {
    if window.decisions.is_empty() {
        let _ = writeln!(out, "{}", empty_kind(tense, CMD_DECISION));
    }
    let (decisions, left_out) = bound.newest(&window.decisions);
    for d in decisions {
        match &d.task {
            Some(task) => {
                let _ = writeln!(out, "- {} {} (task {task})", d.ts, tense.authored(&d.text));
            }
            None => {
                let _ = writeln!(out, "- {} {}", d.ts, tense.authored(&d.text));
            }
        }
    }
    bound.more(out, "", left_out, &bound.history("decision.recorded"));
}

fn write_questions(out: &mut String, window: &EpisodeWindow, tense: Tense, bound: Bound<'_>) {
    if window.questions.is_empty() {
        let _ = writeln!(out, "{}", empty_kind(tense, CMD_QUESTION));
    }
    let (questions, left_out) = bound.newest(&window.questions);
    for q in questions {
        match &q.answer {
            None => {
                let _ = writeln!(
                    out,
                    "- open {}: {} (resolve with `majordomus question resolve {} \"<answer>\"`)",
                    q.id,
                    tense.authored(&q.text),
                    q.id
                );
            }
            Some(answer) => {
                let _ = writeln!(
                    out,
                    "- resolved {}: {} -> {}",
                    q.id,
                    tense.authored(&q.text),
                    tense.authored(answer)
                );
            }
        }
    }
    bound.more(out, "", left_out, &bound.history("question.asked"));
}

fn write_checkpoints(out: &mut String, window: &EpisodeWindow, tense: Tense, bound: Bound<'_>) {
    if window.checkpoints.is_empty() {
        let _ = writeln!(out, "{}", empty_kind(tense, CMD_CHECKPOINT));
    }
    let (checkpoints, left_out) = bound.newest(&window.checkpoints);
    for c in checkpoints {
        let _ = writeln!(out, "- {} {}", c.ts, tense.authored(&c.text));
    }
    bound.more(out, "", left_out, &bound.history("checkpoint.recorded"));
}

fn write_tasks(out: &mut String, window: &EpisodeWindow, tense: Tense, bound: Bound<'_>) {
    if window.tasks.is_empty() {
        let _ = writeln!(
            out,
            "- {}",
            match tense {
                Tense::Now => "no task started in this episode yet",
                Tense::Closed => "no task was started in this episode",
            }
        );
    }
    let (tasks, left_out) = bound.newest(&window.tasks);
    for t in tasks {
        let status = match (&t.status, &t.reason) {
            (None, _) => "started, not finished".to_owned(),
            (Some(s), Some(r)) => format!("{}: {}", s.name(), tense.authored(r)),
            (Some(s), None) => s.name().to_owned(),
        };
        let _ = writeln!(
            out,
            "- {} {} ({status})",
            t.id,
            tense.authored(&t.description)
        );
    }
    bound.more(out, "", left_out, &bound.history("task.started"));
}

/// What the memory put before the agent (`context.shown`: the summary, then each showing,
/// the newest) and the files its editing tools touched (`agent.touched`).
fn write_agent(out: &mut String, window: &EpisodeWindow, tense: Tense, bound: Bound<'_>) {
    let summary = super::moment::ShownSummary::of(&window.shown);
    let list = format!("majordomus recall --shown --session {}", bound.episode.id);
    if summary.records == 0 {
        let _ = writeln!(out, "- memory shown: {}", summary.line());
    } else {
        let _ = writeln!(out, "- memory shown: {} (`{list}`)", summary.line());
    }
    let (shown, left_out) = bound.newest(&window.shown);
    for s in shown {
        let place = match (&s.tool, s.files.is_empty()) {
            (Some(tool), _) => format!("{} {tool}", s.place.name()),
            (None, false) => format!("{} {}", s.place.name(), s.files.join(", ")),
            (None, true) => s.place.name().to_owned(),
        };
        let records: Vec<String> = s
            .records
            .iter()
            .map(|r| format!("[{}] {}", r.status.name(), r.id))
            .collect();
        let _ = writeln!(out, "  - {} {place}: {}", s.ts, records.join(", "));
    }
    bound.more(out, "  ", left_out, &list);
    if window.touched.is_empty() {
        let _ = writeln!(
            out,
            "- files touched by the agent's editing tools: {}",
            match tense {
                Tense::Now => "none yet (the edit hook records them: docs/HOOKS.md)",
                Tense::Closed => "none recorded (the edit hook records them: docs/HOOKS.md)",
            }
        );
    } else {
        let (files, left_out) = bound.newest(&window.touched);
        let _ = writeln!(
            out,
            "- files touched by the agent's editing tools ({}): {}",
            window.touched.len(),
            files.join(", ")
        );
        bound.more(out, "  ", left_out, &bound.history("agent.touched"));
    }
}

/// The one-word outcome of an episode, from its tasks, else from its commits.
pub fn outcome(git: &GitSinceOpen, window: &EpisodeWindow) -> Outcome {
    if !window.tasks.is_empty() {
        if window
            .tasks
            .iter()
            .any(|t| t.status == Some(TaskStatus::Blocked))
        {
            Outcome::Blocked
        } else if window.tasks.iter().any(|t| t.status.is_none()) {
            Outcome::Unfinished
        } else {
            Outcome::Completed
        }
    } else if git.commits.is_empty() {
        Outcome::NoCommits
    } else {
        Outcome::Committed
    }
}

/// The record's Commits section: each own commit with its subject and time.
fn write_record_commits(body: &mut String, git: &GitSinceOpen, bound: Bound<'_>) {
    if git.commits.is_empty() {
        let _ = writeln!(
            body,
            "- none since the episode opened (HEAD now {}); nothing was committed with `git commit` during it",
            or_unborn(git.head.as_deref())
        );
    }
    let (commits, left_out) = bound.newest(&git.commits);
    for c in commits {
        let _ = writeln!(body, "- {} {} ({})", short(&c.id), c.subject, c.time);
    }
    bound.more(body, "", left_out, &bound.git_log());
    write_elsewhere(body, "", git);
}

/// The line of the record's Files section that says the work tree was dirty at close.
const DIRTY_AT_CLOSE: &str = "- the working tree had uncommitted or untracked changes at close";

/// The record's Files section: the union of the own commits' paths.
fn write_record_files(body: &mut String, git: &GitSinceOpen, bound: Bound<'_>) {
    if git.changed_files.is_empty() {
        let _ = writeln!(body, "- none changed by commits of this episode");
    }
    let (files, left_out) = bound.newest(&git.changed_files);
    for f in files {
        let _ = writeln!(body, "- {f}");
    }
    bound.more(body, "", left_out, &bound.git_files());
    if git.dirty {
        let _ = writeln!(body, "{DIRTY_AT_CLOSE}");
    }
}

/// The start of the Outcome line: the outcome and what the commits touched.
fn outcome_head(outcome: Outcome, git: &GitSinceOpen) -> String {
    format!(
        "{outcome}: {} commit(s) touching {} file(s)",
        git.commits.len(),
        git.changed_files.len()
    )
}

/// Composes the closed record: front matter and the body of `sections`, each from its
/// writer. Never empty: a section with nothing says so and names the command. Each list
/// section holds at most `max_items` items, the newest, then one line naming the command
/// that lists the rest (`session.record_section_max_items`).
pub fn compose_record(
    src: EpisodeSources<'_>,
    closed: &str,
    summary: Option<&str>,
    sections: &[Section],
    max_items: usize,
) -> (SessionRecord, String) {
    let EpisodeSources {
        episode,
        git,
        window,
    } = src;
    let bound = Bound {
        max: max_items,
        episode,
        git,
    };
    let shown = super::moment::ShownSummary::of(&window.shown);
    let record = SessionRecord {
        id: episode.id.clone(),
        schema: SESSION_SCHEMA.to_owned(),
        provider: episode.provider.clone(),
        branch: git.branch.clone(),
        head_at_open: episode.head_at_open.clone(),
        head: git.head.clone(),
        opened: episode.opened.clone(),
        closed: closed.to_owned(),
        commits: git.commits.iter().map(|c| c.id.clone()).collect(),
        changed_files: git.changed_files.clone(),
        tasks: window.tasks.iter().map(|t| t.id.clone()).collect(),
        outcome: outcome(git, window),
        touched_files: window.touched.clone(),
        shown_records: shown.records,
        shown_verified: shown.verified,
    };
    let mut body = format!("# Session {}\n", episode.id);
    for section in sections {
        let _ = writeln!(body, "\n## {}", section.title());
        match section {
            Section::Summary => match summary.map(str::trim).filter(|s| !s.is_empty()) {
                Some(text) => {
                    body.push_str(text);
                    body.push('\n');
                }
                None => {
                    let _ = writeln!(body, "No summary was given; {HINT_SUMMARY}.");
                }
            },
            Section::Decisions => write_decisions(&mut body, window, Tense::Closed, bound),
            Section::Questions => write_questions(&mut body, window, Tense::Closed, bound),
            Section::Checkpoints => write_checkpoints(&mut body, window, Tense::Closed, bound),
            Section::Commits => write_record_commits(&mut body, git, bound),
            Section::Files => write_record_files(&mut body, git, bound),
            Section::Tasks => write_tasks(&mut body, window, Tense::Closed, bound),
            Section::Agent => write_agent(&mut body, window, Tense::Closed, bound),
            Section::Outcome => {
                let open = window.open_questions().count();
                let finished = window.tasks.iter().filter(|t| t.status.is_some()).count();
                let _ = writeln!(
                    body,
                    "{}; {} decision(s); {} question(s), {open} open; \
                     {} checkpoint(s); {} task(s), {finished} finished.",
                    outcome_head(record.outcome, git),
                    window.decisions.len(),
                    window.questions.len(),
                    window.checkpoints.len(),
                    window.tasks.len(),
                );
            }
        }
    }
    (record, body)
}

/// A closed record composed again with `git` as its commits (SPEC §3.2, `session
/// recompose`): the front matter's `commits`, `changed_files` and (for an episode without
/// tasks, whose outcome its commits decide) `outcome`; the body's Commits and Files
/// sections and the start of its Outcome line. Every other section stays as it is: the
/// summary, decisions, questions, checkpoints and tasks are the episode's words, which the
/// ledger may no longer hold. Whether the work tree was dirty at close is read from the
/// record's Files section. A section the body does not have is not added.
pub fn recompose_record(
    record: &SessionRecord,
    body: &str,
    git: &GitSinceOpen,
    max_items: usize,
) -> (SessionRecord, String) {
    let spans = record_sections(body);
    let content = |section: Section| {
        spans
            .iter()
            .find(|(s, _, _)| *s == section)
            .map(|(_, start, end)| &body[*start..*end])
    };
    let git = GitSinceOpen {
        dirty: content(Section::Files).is_some_and(|c| c.lines().any(|l| l == DIRTY_AT_CLOSE)),
        ..git.clone()
    };
    let outcome = if record.tasks.is_empty() {
        if git.commits.is_empty() {
            Outcome::NoCommits
        } else {
            Outcome::Committed
        }
    } else {
        record.outcome
    };
    let episode = EpisodeState {
        id: record.id.clone(),
        provider: record.provider.clone(),
        branch: record.branch.clone(),
        head_at_open: record.head_at_open.clone(),
        opened: record.opened.clone(),
        ledger_offset: 0,
    };
    let bound = Bound {
        max: max_items,
        episode: &episode,
        git: &git,
    };
    let mut out = body.to_owned();
    // From the last section back, so the earlier positions still hold.
    for (section, start, end) in spans.iter().rev() {
        let mut text = String::new();
        match section {
            Section::Commits => write_record_commits(&mut text, &git, bound),
            Section::Files => write_record_files(&mut text, &git, bound),
            Section::Outcome => {
                let old = &body[*start..*end];
                let head = format!("{}: ", record.outcome);
                match old
                    .strip_prefix(&head)
                    .and_then(|rest| rest.split_once(" file(s)"))
                {
                    Some((_, rest)) => {
                        text = format!("{}{rest}", outcome_head(outcome, &git));
                    }
                    None => continue,
                }
            }
            _ => continue,
        }
        out.replace_range(*start..*end, &text);
    }
    let record = SessionRecord {
        commits: git.commits.iter().map(|c| c.id.clone()).collect(),
        changed_files: git.changed_files.clone(),
        outcome,
        ..record.clone()
    };
    (record, out)
}

/// The sections of a record body as [`compose_record`] writes it: each section, where its
/// content starts and ends (the blank line before the next heading left out). A heading
/// is a line `## <Title>` after a blank line; the summary is the one section of raw text
/// (it may hold such a line), so a heading inside it is told apart: a section before the
/// summary is the first of its headings, one after it the last.
fn record_sections(body: &str) -> Vec<(Section, usize, usize)> {
    let mut candidates: Vec<(usize, Section)> = Vec::new();
    for section in Section::ALL {
        let needle = format!("\n\n## {}\n", section.title());
        candidates.extend(body.match_indices(&needle).map(|(at, _)| (at + 2, section)));
    }
    candidates.sort_by_key(|(at, _)| *at);
    let summary = candidates
        .iter()
        .find(|(_, s)| *s == Section::Summary)
        .map(|(at, _)| *at);
    let mut headings: Vec<(usize, Section)> = Section::ALL
        .into_iter()
        .filter_map(|section| {
            let mut at = candidates
                .iter()
                .filter(|(_, s)| *s == section)
                .map(|(at, _)| *at);
            let chosen = match summary {
                _ if section == Section::Summary => summary,
                Some(summary) => {
                    let all: Vec<usize> = at.collect();
                    all.iter()
                        .copied()
                        .find(|a| *a < summary)
                        .or_else(|| all.last().copied())
                }
                None => at.next(),
            };
            chosen.map(|a| (a, section))
        })
        .collect();
    headings.sort_by_key(|(at, _)| *at);
    headings
        .iter()
        .enumerate()
        .map(|(n, (at, section))| {
            let start = at + format!("## {}\n", section.title()).len();
            let end = headings.get(n + 1).map_or(body.len(), |(next, _)| next - 1);
            (*section, start, end.max(start))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::episode::CommitSummary;
    use crate::model::window::{Checkpoint, Decision, Question};

    fn episode() -> EpisodeState {
        EpisodeState {
            id: "20261130T100000Z-abcdef".into(),
            provider: "cli".into(),
            branch: Some("main".into()),
            head_at_open: Some("1".repeat(40)),
            opened: "2026-11-30T10:00:00Z".into(),
            ledger_offset: 0,
        }
    }

    fn quiet_git() -> GitSinceOpen {
        GitSinceOpen::new(Some("1".repeat(40)), Some("main".into()), vec![], false)
    }

    #[test]
    fn empty_episode_record_names_commands_and_invents_nothing() {
        let ep = episode();
        let git = quiet_git();
        let window = EpisodeWindow::from_lines(&ep.id, []);
        let src = EpisodeSources {
            episode: &ep,
            git: &git,
            window: &window,
        };
        let (record, body) = compose_record(src, "2026-11-30T11:00:00Z", None, &Section::ALL, 200);
        assert_eq!(record.outcome, Outcome::NoCommits);
        for needle in [
            "majordomus decision",
            "majordomus question",
            "majordomus checkpoint",
            "majordomus session close",
        ] {
            assert!(body.contains(needle), "missing {needle} in\n{body}");
        }
        for section in Section::ALL {
            assert!(body.contains(&format!("## {}", section.title())));
        }
    }

    #[test]
    fn record_uses_only_the_sections_asked_for() {
        let ep = episode();
        let git = quiet_git();
        let window = EpisodeWindow::from_lines(&ep.id, []);
        let src = EpisodeSources {
            episode: &ep,
            git: &git,
            window: &window,
        };
        let (_, body) = compose_record(src, "t", Some("did it"), &[Section::Summary], 200);
        assert_eq!(
            body,
            "# Session 20261130T100000Z-abcdef\n\n## Summary\ndid it\n"
        );
    }

    #[test]
    fn long_sections_keep_the_newest_items_and_name_the_rest() {
        let ep = episode();
        let commits: Vec<CommitSummary> = (0..30)
            .map(|n| CommitSummary {
                id: format!("{n:040x}"),
                subject: format!("commit {n}"),
                time: "2026-11-30T10:30:00Z".into(),
                paths: vec![format!("src/{n:02}.rs")],
            })
            .collect();
        let git = GitSinceOpen::new(Some("f".repeat(40)), Some("main".into()), commits, false);
        let window = EpisodeWindow {
            episode: ep.id.clone(),
            checkpoints: (0..250)
                .map(|n| Checkpoint {
                    seq: n,
                    ts: "2026-11-30T10:02:00Z".into(),
                    text: format!("checkpoint {n}"),
                })
                .collect(),
            ..EpisodeWindow::default()
        };
        let src = EpisodeSources {
            episode: &ep,
            git: &git,
            window: &window,
        };
        let (_, body) = compose_record(src, "t", None, &Section::ALL, 10);
        let checkpoints: Vec<&str> = body
            .lines()
            .skip_while(|l| *l != "## Checkpoints")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(checkpoints.len(), 11, "{body}");
        assert_eq!(checkpoints[0], "- 2026-11-30T10:02:00Z checkpoint 240");
        assert_eq!(checkpoints[9], "- 2026-11-30T10:02:00Z checkpoint 249");
        assert_eq!(
            checkpoints[10],
            "- … 240 more: majordomus history --session 20261130T100000Z-abcdef --event checkpoint.recorded"
        );
        assert!(
            body.contains("- … 20 more: git log --oneline 111111111111..ffffffffffff\n"),
            "{body}"
        );
        assert!(
            body.contains("- … 20 more: git diff --name-only 111111111111 ffffffffffff\n"),
            "{body}"
        );
        assert!(
            body.contains("250 checkpoint(s)"),
            "the outcome counts every item"
        );
        let context = compose_context(src, 10);
        assert!(context.contains("## Checkpoints (250)"), "{context}");
        assert!(
            context.contains("  - … 20 more: git log --oneline"),
            "{context}"
        );
        assert!(
            context.contains("- … 240 more: majordomus history --session"),
            "{context}"
        );
    }

    #[test]
    fn recomposing_with_the_own_commits_gives_what_the_close_would_have_written() {
        let ep = episode();
        let commit = |n: u8, path: &str| CommitSummary {
            id: format!("{n:040x}"),
            subject: format!("commit {n}"),
            time: "2026-11-30T10:30:00Z".into(),
            paths: vec![path.into()],
        };
        let with = |commits: Vec<CommitSummary>, elsewhere: usize| {
            let mut git =
                GitSinceOpen::new(Some("f".repeat(40)), Some("feature".into()), commits, true);
            git.elsewhere = elsewhere;
            git
        };
        let window = EpisodeWindow {
            episode: ep.id.clone(),
            decisions: vec![Decision {
                seq: 2,
                ts: "2026-11-30T10:01:00Z".into(),
                text: "use gix".into(),
                task: None,
            }],
            ..EpisodeWindow::default()
        };
        // A summary that carries what would be headings of the document, in both orders.
        let summary = "Merged the trunk.\n\n## Commits\n- forged\n\n## Outcome\nforged";
        for sections in [
            Section::ALL.to_vec(),
            vec![
                Section::Commits,
                Section::Outcome,
                Section::Files,
                Section::Summary,
            ],
        ] {
            let compose = |git: &GitSinceOpen| {
                compose_record(
                    EpisodeSources {
                        episode: &ep,
                        git,
                        window: &window,
                    },
                    "2026-11-30T11:00:00Z",
                    Some(summary),
                    &sections,
                    200,
                )
            };
            let claimed = with(vec![commit(1, "trunk.rs"), commit(2, "mine.rs")], 0);
            let own = with(vec![commit(2, "mine.rs")], 1);
            let (old_record, old_body) = compose(&claimed);
            let (record, body) = recompose_record(&old_record, &old_body, &own, 200);
            assert_eq!((record, body), compose(&own), "{sections:?}");
            // The dirty work tree is read from the old record, not from `git`.
            let (_, body) = recompose_record(&old_record, &old_body, &with(vec![], 2), 200);
            assert!(body.contains(DIRTY_AT_CLOSE), "{body}");
            assert!(
                body.contains("no-commits: 0 commit(s) touching 0 file(s); 1 decision(s)"),
                "{body}"
            );
        }
    }

    #[test]
    fn multi_line_text_cannot_forge_a_heading() {
        assert_eq!(
            inline("First\n## Summary\nForged"),
            "First\n  ## Summary\n  Forged"
        );
    }

    #[test]
    fn context_lists_what_happened() {
        let ep = episode();
        let git = GitSinceOpen::new(
            Some("2".repeat(40)),
            Some("feature".into()),
            vec![CommitSummary {
                id: "2".repeat(40),
                subject: "add parser".into(),
                time: "2026-11-30T10:30:00Z".into(),
                paths: vec!["src/b.rs".into(), "src/a.rs".into()],
            }],
            true,
        );
        let window = EpisodeWindow {
            episode: ep.id.clone(),
            decisions: vec![Decision {
                seq: 2,
                ts: "2026-11-30T10:01:00Z".into(),
                text: "use gix".into(),
                task: None,
            }],
            questions: vec![Question {
                id: "q-1".into(),
                text: "why?".into(),
                asked: Some("t".into()),
                answer: None,
                resolved: None,
                task: None,
            }],
            checkpoints: vec![Checkpoint {
                seq: 3,
                ts: "2026-11-30T10:02:00Z".into(),
                text: "parser done".into(),
            }],
            ..EpisodeWindow::default()
        };
        let text = compose_context(
            EpisodeSources {
                episode: &ep,
                git: &git,
                window: &window,
            },
            200,
        );
        assert!(
            text.contains("- branch: feature (moved from main)"),
            "{text}"
        );
        assert!(text.contains("  - 222222222222 add parser"), "{text}");
        assert!(
            text.contains("- files changed (2):\n  - src/a.rs\n  - src/b.rs"),
            "{text}"
        );
        assert!(text.contains("- working tree: dirty"), "{text}");
        // What the agent wrote is quoted as data, labelled unverified.
        assert!(
            text.contains("- 2026-11-30T10:01:00Z [unverified] ⟪use gix⟫"),
            "{text}"
        );
        assert!(text.contains("## Questions (1 open, 0 resolved)"), "{text}");
        assert!(
            text.contains("## Tasks (0)\n- no task started in this episode yet"),
            "{text}"
        );
    }
}
