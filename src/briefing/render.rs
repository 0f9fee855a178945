//! The briefing's text, inside `session.briefing_budget_lines` and a byte budget no client
//! cuts (SPEC §5.6: [`MAX_BYTES`], and [`QUIET_MAX_BYTES`] with nothing at hand): headings,
//! counts and the "more" lines are always shown; the item lines of the lists share what the
//! budgets leave, the knowledge weighing twice, and room one list does not need goes to the
//! others. A list that is cut says how many it left out and the command that lists them;
//! each quoted text is whole or cut at a word with `…` ([`TEXT_MAX`]).

use std::fmt::Write as _;

use super::{Briefing, decisions_request, knowledge_request};
use crate::model::inject::{LEGEND, Label, cut_at_word, fence};
use crate::recall::{Hit, command};

/// The fewest lines a briefing shows besides its items: headings, blanks, count lines,
/// and the practice.
pub const ALWAYS_SHOWN: usize = 11 + PRACTICE_LINES;

/// The most bytes a briefing takes, whatever the store holds (SPEC §5.6): Claude Code
/// replaces a session-start context over 10,000 characters with a 2 KB preview the model is
/// not told to read, so the briefing stays under that with room for the client's own text.
pub const MAX_BYTES: usize = 8_000;

/// The most bytes a briefing takes with nothing at hand to rank by (SPEC §5.6): the
/// practice, the open questions, the review line, the counts and the command that lists
/// what the repository knows; no record is listed by recency (the most recently verified
/// records hit the next task rarely: docs/RECALL.md, "What the briefing shows, and why").
pub const QUIET_MAX_BYTES: usize = 2_048;

/// Bytes a quoted text takes on a briefing line at most: whole, or cut at a word with `…`
/// (the line's command reads it whole).
pub const TEXT_MAX: usize = 240;

/// How to work with the memory, the briefing's first section (the worker's bootstrap):
/// what to ask before deciding, what to record, and the reasoning practice for a material
/// uncertainty. Every agent client puts it before the model at session start.
pub const PRACTICE: &str = "## How to work here
- Before deciding an area, ask what is known there (majordomus_recall with its files or words); record each decision with the files it concerns (majordomus_decision_record).
- On a material uncertainty: record an assessment with its evidence (majordomus_reasoning_record), let the plan choose optional advisors or the local review (majordomus_reasoning_consult), settle a disagreement by an experiment, record the conclusion, and continue.
- A missing advisor is a reported state, never a reason to stop.
";

/// The lines [`PRACTICE`] takes, with the blank line after it.
const PRACTICE_LINES: usize = 5;

/// Shares `items` lines among lists of `(demand, weight)`, a round at a time in list
/// order, never giving a list more than it has.
fn allocate(items: usize, lists: &[(usize, usize)]) -> Vec<usize> {
    let mut alloc = vec![0; lists.len()];
    let mut left = items;
    while left > 0 {
        let mut gave = false;
        for (i, (demand, weight)) in lists.iter().enumerate() {
            let give = (*weight).min(demand - alloc[i]).min(left);
            if give > 0 {
                alloc[i] += give;
                left -= give;
                gave = true;
            }
        }
        if !gave {
            break;
        }
    }
    alloc
}

fn knowledge_line(hit: &Hit) -> String {
    // Every signal that ranked it but recency (a path, the same task, issue or intent):
    // the line says why it is where it is. Its status first when it is stale (what the
    // reader must know before acting on it), then at most three, and how many more
    // (`recall --at-hand` shows them all).
    let mut all: Vec<String> = hit
        .why
        .iter()
        .filter(|r| r.signal != "recency")
        .map(|r| match r.signal.as_str() {
            "terms" => format!("terms {}", r.detail),
            _ => r.detail.clone(),
        })
        .collect();
    if let Some(at) = hit
        .why
        .iter()
        .filter(|r| r.signal != "recency")
        .position(|r| r.signal == "status")
    {
        let status = all.remove(at);
        all.insert(0, status);
    }
    let mut reasons: Vec<String> = all.iter().take(3).cloned().collect();
    if all.len() > 3 {
        reasons.push(format!("{} more", all.len() - 3));
    }
    let why = if reasons.is_empty() {
        " —".to_owned()
    } else {
        format!(" — why: {};", reasons.join("; "))
    };
    // The section says what they are.
    let label = Label {
        kind: None,
        ..hit.label()
    };
    format!(
        "- {}{why} read: `{}`",
        fence(&label, &cut_at_word(&hit.line, TEXT_MAX)).text,
        hit.read.command
    )
}

fn decision_line(hit: &Hit) -> String {
    let day = hit.date.get(..10).unwrap_or(&hit.date);
    // The section names the branch.
    let label = Label {
        branch: None,
        ..hit.label()
    };
    format!(
        "- {day} {} — read: `{}`",
        fence(&label, &cut_at_word(&hit.line, TEXT_MAX)).text,
        hit.read.command
    )
}

/// Whether the briefing quotes a record (and so opens with [`LEGEND`]).
fn quotes_any(b: &Briefing) -> bool {
    !b.knowledge.hits.is_empty()
        || !b.open_questions.is_empty()
        || !b.decisions.hits.is_empty()
        || (b.last_handover.is_some() && !b.next_action.is_empty())
        || b.worktrees_total > 0
        || b.writers_total > 0
}

/// The lists whose item lines share the budgets, in the order of [`Alloc`]: what the
/// repository knows, open questions, the branch's decisions, the branch's candidates, the
/// other worktrees, the other writers, and the unassigned candidates (always named while
/// the bytes allow, then counted with the command that lists them).
const LISTS: usize = 7;
type Alloc = [usize; LISTS];

/// Renders the briefing and keeps in it only the hits it shows, with the commands that
/// list the rest: the item lines the line budget allows, then fewer while the text is over
/// its byte budget (the longest list gives a line first, the knowledge counting half).
pub fn render(b: &mut Briefing) -> String {
    let quiet = b.at_hand.is_empty();
    let max = if quiet { QUIET_MAX_BYTES } else { MAX_BYTES };
    let mut alloc = allocation(b, quiet);
    loop {
        let mut trial = b.clone();
        let text = compose(&mut trial, &alloc, quiet);
        if text.len() <= max || !shrink(&mut alloc) {
            *b = trial;
            return text;
        }
    }
}

/// Takes one item line from the list holding the most (the knowledge's lines counting
/// half: it weighs twice); `false` when every list is empty.
fn shrink(alloc: &mut Alloc) -> bool {
    let weighed = |i: usize, n: usize| if i == 0 { n.div_ceil(2) } else { n };
    let Some((i, _)) = alloc
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .max_by_key(|(i, n)| (weighed(*i, **n), std::cmp::Reverse(*i)))
    else {
        return false;
    };
    alloc[i] -= 1;
    true
}

/// The item lines each list gets from `session.briefing_budget_lines`. With nothing at
/// hand (`quiet`), what the repository knows is counted, not listed by recency.
fn allocation(b: &Briefing, quiet: bool) -> Alloc {
    let budget = usize::try_from(b.budget_lines).unwrap_or(usize::MAX);
    let (assigned, unassigned): (Vec<_>, Vec<_>) = b
        .candidates
        .iter()
        .partition(|c| c.episode.is_some() || c.outbox);
    let handover_lines = 1 + if b.last_handover.is_some() {
        b.next_action.len()
    } else {
        0
    };
    // Lines shown whatever the budget: headings, blanks, the "ranked by" line, an empty
    // list's "none" line, the candidates' count line, the unassigned candidates. The
    // decisions' sub-list is left out when it is empty.
    let knowledge_head = if b.knowledge.hits.is_empty() {
        1 + usize::from(!b.at_hand.is_empty())
    } else {
        1
    };
    let decisions_head = usize::from(b.branch.is_some() && b.decisions.total > 0);
    // The line that counts the candidates that are decisions listed above.
    let decided_line = usize::from(
        assigned
            .iter()
            .any(|c| b.decisions.hits.iter().any(|h| h.id == c.id)),
    );
    let legend = quotes_any(b);
    let base = PRACTICE_LINES
        + 1
        + usize::from(legend)
        + usize::from(b.mesh.is_some())
        + usize::from(b.open_questions.is_empty())
        + 1
        + 1
        + knowledge_head
        + decisions_head
        + decided_line
        + 3
        + usize::from(b.other_branches > 0)
        + unassigned.len()
        + b.conflicted.len()
        + 1
        + 1
        + handover_lines
        // The other worktrees' heading and blank line, when there are any.
        + if b.worktrees_total > 0 { 2 } else { 0 }
        // The other writers' heading and blank line, when there are any.
        + if b.writers_total > 0 { 2 } else { 0 }
        + usize::from(b.journal_error.is_some());
    // Knowledge, questions, decisions, candidates, other worktrees, other writers.
    let demands = [
        (if quiet { 0 } else { b.knowledge.hits.len() }, 2),
        (b.open_questions.len(), 1),
        (b.decisions.hits.len(), 1),
        (assigned.len(), 1),
        (b.worktrees.len(), 1),
        (b.writers.len(), 1),
    ];
    let totals = [
        b.knowledge.total,
        b.open_questions.len(),
        b.decisions.total,
        assigned.len(),
        b.worktrees_total,
        b.writers_total,
    ];
    let mut alloc = allocate(budget.saturating_sub(base), &demands);
    for _ in 0..4 {
        let cut = alloc
            .iter()
            .zip(totals)
            .filter(|(a, total)| **a < *total)
            .count();
        let next = allocate(budget.saturating_sub(base + cut), &demands);
        if next == alloc {
            break;
        }
        alloc = next;
    }
    // One record of what the repository knows is always shown when there is one and
    // something at hand ranked it.
    if alloc[0] == 0 && demands[0].0 > 0 {
        alloc[0] = 1;
    }
    [
        alloc[0],
        alloc[1],
        alloc[2],
        alloc[3],
        alloc[4],
        alloc[5],
        unassigned.len(),
    ]
}

/// The briefing's text with `alloc` item lines a list, and `b`'s lists truncated to what it
/// shows.
fn compose(b: &mut Briefing, alloc: &Alloc, quiet: bool) -> String {
    let (assigned, unassigned): (Vec<_>, Vec<_>) = b
        .candidates
        .iter()
        .cloned()
        .partition(|c| c.episode.is_some() || c.outbox);
    // A candidate or handover the resumed conversation holds is counted, not named again.
    let (assigned, unassigned): (Vec<_>, Vec<_>) = (
        assigned
            .into_iter()
            .filter(|c| !b.held.contains(&c.id))
            .collect(),
        unassigned
            .into_iter()
            .filter(|c| !b.held.contains(&c.id))
            .collect(),
    );
    let legend = quotes_any(b);
    let mut out = String::new();
    match b.resumed {
        // The conversation holds the practice and what it was shown: said once, not again.
        Some(n) => {
            let _ = writeln!(
                out,
                "Resumed conversation: how to work here and the {n} record(s) it was shown earlier are not repeated."
            );
        }
        None => out.push_str(PRACTICE),
    }
    out.push('\n');
    if legend {
        let _ = writeln!(out, "{LEGEND}");
    }
    if let Some(line) = &b.mesh {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "## Open questions ({})", b.open_questions.len());
    if b.open_questions.is_empty() {
        out.push_str("- none open\n");
    }
    for q in b.open_questions.iter().take(alloc[1]) {
        let label = Label {
            status: "open",
            episode: q.session.as_deref(),
            ..Label::default()
        };
        let _ = writeln!(
            out,
            "- {}: {} (asked {})",
            q.id,
            fence(&label, &cut_at_word(&q.text, TEXT_MAX)).text,
            q.asked
        );
    }
    if b.open_questions.len() > alloc[1] {
        let _ = writeln!(
            out,
            "- ... {} more: `majordomus history --event question.asked`",
            b.open_questions.len() - alloc[1]
        );
    }

    let at_least = |r: &super::Ranked| if r.total_exact { "" } else { "at least " };
    let _ = writeln!(
        out,
        "\n## What the repository knows ({}{})",
        at_least(&b.knowledge),
        b.knowledge.total
    );
    let mut request = knowledge_request();
    request.limit = Some(b.knowledge.total.clamp(1, crate::recall::MAX_LIMIT));
    b.knowledge.command = command(&request);
    match (quiet, b.knowledge.hits.is_empty()) {
        (true, true) => out.push_str(
            "- nothing verified yet (promote a candidate: `majordomus knowledge candidates`)\n",
        ),
        (true, false) => {
            let _ = writeln!(
                out,
                "nothing at hand to rank by (no uncommitted change, no commit of this branch's own, no task, no files of the last handover): `{}` lists them, newest first; `majordomus recall <words or --path>` finds what concerns a task",
                b.knowledge.command
            );
        }
        (false, empty) => {
            let _ = writeln!(out, "ranked by the work at hand: {}", b.at_hand.join("; "));
            if empty {
                out.push_str("- nothing verified about this work yet (`majordomus recall` searches everything)\n");
            }
        }
    }
    b.knowledge.hits.truncate(alloc[0]);
    for hit in &b.knowledge.hits {
        out.push_str(&knowledge_line(hit));
        out.push('\n');
    }
    if b.knowledge.total > b.knowledge.hits.len() && !(quiet && b.knowledge.hits.is_empty()) {
        let _ = writeln!(
            out,
            "- ... {}{} more: `{}`",
            at_least(&b.knowledge),
            b.knowledge.total - b.knowledge.hits.len(),
            b.knowledge.command
        );
    }
    if let Some(branch) = b.branch.as_ref().filter(|_| b.decisions.total > 0) {
        let _ = writeln!(
            out,
            "Decisions on {branch}, not yet promoted or rejected ({}{})",
            at_least(&b.decisions),
            b.decisions.total
        );
        let mut request = decisions_request(branch);
        request.limit = Some(b.decisions.total.clamp(1, crate::recall::MAX_LIMIT));
        b.decisions.command = command(&request);
        b.decisions.hits.truncate(alloc[2]);
        for hit in &b.decisions.hits {
            out.push_str(&decision_line(hit));
            out.push('\n');
        }
        if b.decisions.total > b.decisions.hits.len() {
            let _ = writeln!(
                out,
                "- ... {}{} more: `{}`",
                at_least(&b.decisions),
                b.decisions.total - b.decisions.hits.len(),
                b.decisions.command
            );
        }
    } else {
        b.decisions.hits.clear();
    }

    let _ = writeln!(
        out,
        "\n## Candidates awaiting review ({})",
        b.candidates.len()
    );
    // The queue of this branch, the oldest first (an id starts with its episode's
    // time), each by its title.
    let queue = match &b.branch {
        Some(branch) => format!("majordomus knowledge candidates --branch {branch}"),
        None => "majordomus knowledge candidates".to_owned(),
    };
    let parked = b.candidates.iter().filter(|c| c.outbox).count();
    if b.candidates.is_empty() {
        out.push_str("- none on this branch\n");
    } else if parked == 0 {
        let _ = writeln!(
            out,
            "{} candidate(s) on this branch, {} unassigned; review: `{queue}`",
            b.candidates.len(),
            unassigned.len()
        );
    } else {
        let _ = writeln!(
            out,
            "{} candidate(s) on this branch, {} unassigned, {parked} in the outbox (on the trunk: they move into the tree at the next episode boundary on a branch); review: `{queue}`",
            b.candidates.len() - parked,
            unassigned.len()
        );
    }
    if b.other_branches > 0 {
        let _ = writeln!(
            out,
            "({} more from episodes on other branches: `majordomus knowledge candidates`)",
            b.other_branches
        );
    }
    // A record a merge left conflicted is named, never left out silently.
    // Its message names branches, which anyone may name: made inert like a label.
    for c in &b.conflicted {
        let _ = writeln!(
            out,
            "- conflicted: {}: {} (knowledge.conflict; `majordomus knowledge check` prints the checkout that keeps one)",
            c.file,
            crate::model::inject::neutralise(&c.message)
                .text
                .replace('\n', " ")
        );
    }
    // A candidate derived from a decision listed above is that decision: one claim, said
    // once (SPEC §8), counted here and not named again.
    let above: std::collections::HashSet<&str> =
        b.decisions.hits.iter().map(|h| h.id.as_str()).collect();
    let (decided, assigned): (Vec<_>, Vec<_>) = assigned
        .into_iter()
        .partition(|c| above.contains(c.id.as_str()));
    if !decided.is_empty() {
        let _ = writeln!(
            out,
            "({} of them: the decisions above, not repeated)",
            decided.len()
        );
    }
    let mut listed: Vec<super::PendingCandidate> = Vec::new();
    for c in assigned.iter().take(alloc[3]) {
        let label = Label {
            status: "candidate",
            episode: c.episode.as_deref(),
            ..Label::default()
        };
        let outbox = if c.outbox { " (outbox)" } else { "" };
        let _ = writeln!(
            out,
            "- {}: {}{outbox}",
            c.id,
            fence(&label, &cut_at_word(&c.title, TEXT_MAX)).text
        );
        listed.push(c.clone());
    }
    if assigned.len() > alloc[3] {
        let _ = writeln!(out, "- ... {} more: `{queue}`", assigned.len() - alloc[3]);
    }
    // Unassigned candidates are named while the bytes allow, then counted: a record the
    // briefing cannot place is still a record someone has to review.
    for c in unassigned.iter().take(alloc[6]) {
        let label = Label {
            status: "candidate",
            ..Label::default()
        };
        let _ = writeln!(
            out,
            "- {}: {} (unassigned: this checkout does not know its episode)",
            c.id,
            fence(&label, &cut_at_word(&c.title, TEXT_MAX)).text
        );
        listed.push(c.clone());
    }
    if unassigned.len() > alloc[6] {
        let _ = writeln!(
            out,
            "- ... {} more unassigned (this checkout does not know their episodes): `majordomus knowledge candidates`",
            unassigned.len() - alloc[6]
        );
    }
    b.shown_candidates = listed;

    if b.worktrees_total > 0 {
        let _ = writeln!(out, "\n## Other worktrees ({})", b.worktrees_total);
        b.worktrees.truncate(alloc[4]);
        for w in &b.worktrees {
            out.push_str(&crate::worktrees::line(w));
            out.push('\n');
        }
        if b.worktrees_total > b.worktrees.len() {
            let _ = writeln!(
                out,
                "- ... {} more: `majordomus worktrees`",
                b.worktrees_total - b.worktrees.len()
            );
        }
    }

    if b.writers_total > 0 {
        let _ = writeln!(out, "\n## Other writers ({})", b.writers_total);
        b.writers.truncate(alloc[5]);
        for w in &b.writers {
            out.push_str(&crate::journal::writers::line(w));
            out.push('\n');
        }
        if b.writers_total > b.writers.len() {
            let _ = writeln!(
                out,
                "- ... {} more: `majordomus journal status`",
                b.writers_total - b.writers.len()
            );
        }
    }
    if let Some(e) = &b.journal_error {
        let _ = writeln!(
            out,
            "(the other writers' journals could not be read: {}; `majordomus journal status` says more)",
            cut_at_word(e, TEXT_MAX)
        );
    }

    out.push_str("\n## Last handover\n");
    let held_handover = b.last_handover.as_deref().is_some_and(|path| {
        path.rsplit('/')
            .next()
            .and_then(|n| n.strip_suffix(".md"))
            .is_some_and(|ep| b.held.contains(&format!("handover:{ep}")))
    });
    match &b.last_handover {
        Some(path) if held_handover => {
            let _ = writeln!(out, "- {path} (shown earlier in this conversation)");
        }
        Some(path) => {
            let _ = writeln!(out, "- {path}");
            let label = Label {
                status: "candidate",
                kind: Some("handover"),
                ..Label::default()
            };
            for line in &b.next_action {
                let _ = writeln!(
                    out,
                    "  next: {}",
                    fence(&label, &cut_at_word(line, TEXT_MAX)).text
                );
            }
        }
        None => out.push_str("- none\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::briefing::{PendingCandidate, Ranked};
    use crate::model::question::LedgerQuestion;
    use crate::model::recall::HitStatus;
    use crate::recall::{Reason, RecallKind, read_hint};

    fn q(n: usize) -> LedgerQuestion {
        LedgerQuestion {
            id: format!("q-{n}"),
            text: format!("question {n}"),
            session: None,
            asked: "2026-11-30T10:00:00Z".into(),
            answer: None,
        }
    }

    fn hit(kind: RecallKind, n: usize) -> Hit {
        let id = format!("20261130T100000Z-abcdef-{n:012}");
        Hit {
            kind,
            id: id.clone(),
            status: HitStatus::Verified,
            line: format!("record {n}"),
            date: "2026-11-30".into(),
            episode: None,
            branch: None,
            task: None,
            writer: None,
            score: 1.0,
            why: vec![Reason {
                signal: "path".into(),
                detail: "src/a.rs (it cites it)".into(),
            }],
            read: read_hint(kind, &id),
            superseded_by: None,
            instruction_shapes: Vec::new(),
            weighed: Default::default(),
        }
    }

    fn briefing(questions: usize, known: usize, decisions: usize, candidates: usize) -> Briefing {
        Briefing {
            open_questions: (0..questions).map(q).collect(),
            knowledge: Ranked {
                hits: (0..known.min(40))
                    .map(|n| hit(RecallKind::Knowledge, n))
                    .collect(),
                total: known,
                total_exact: true,
                command: String::new(),
            },
            at_hand: vec!["active task t-20261130-1a2b (scope src/)".into()],
            decisions: Ranked {
                hits: (0..decisions.min(40))
                    .map(|n| hit(RecallKind::Decision, n))
                    .collect(),
                total: decisions,
                total_exact: true,
                command: String::new(),
            },
            branch: Some("feature".into()),
            candidates: (0..candidates)
                .map(|n| PendingCandidate {
                    id: format!("c-{n:02}"),
                    title: format!("Claim {n}"),
                    episode: Some("E".into()),
                    branch: Some("feature".into()),
                    outbox: false,
                })
                .collect(),
            shown_candidates: Vec::new(),
            other_branches: 3,
            last_handover: None,
            conflicted: Vec::new(),
            next_action: Vec::new(),
            worktrees: Vec::new(),
            worktrees_total: 0,
            writers: Vec::new(),
            writers_total: 0,
            journal_error: None,
            mesh: None,
            budget_lines: 40,
            text: String::new(),
            resumed: None,
            held: Default::default(),
            policy_error: None,
            index_rebuilt: None,
            recall_rebuilt: None,
        }
    }

    #[test]
    fn empty_sections_say_so() {
        let mut b = briefing(0, 0, 0, 0);
        b.at_hand.clear();
        b.other_branches = 0;
        let text = render(&mut b);
        assert!(
            text.contains("## Open questions (0)\n- none open"),
            "{text}"
        );
        assert!(
            text.contains("## What the repository knows (0)\n- nothing verified yet"),
            "{text}"
        );
        assert!(!text.contains("Decisions on "), "{text}");
        assert!(text.contains("## Candidates awaiting review (0)\n- none on this branch"));
        assert!(text.contains("## Last handover\n- none"));
    }

    #[test]
    fn the_budget_holds_and_every_cut_names_its_count_and_command() {
        // From 25: the practice's five lines and the headings are always shown.
        for budget in [25, 30, 40, 60] {
            let mut b = briefing(50, 120, 30, 50);
            b.budget_lines = budget;
            let text = render(&mut b);
            assert!(
                text.lines().count() <= budget as usize,
                "{budget}: {} lines\n{text}",
                text.lines().count()
            );
            assert!(text.contains("## Open questions (50)"));
            assert!(text.contains("## What the repository knows (120)"));
            let shown = b.knowledge.hits.len();
            assert!(shown >= 1);
            assert!(
                text.contains(&format!(
                    "- ... {} more: `majordomus recall --kind knowledge --status verified --status stale --at-hand --limit 120`",
                    120 - shown
                )),
                "{text}"
            );
            assert!(
                text.contains("more: `majordomus recall --kind decision --status candidate --branch feature --limit 30`"),
                "{text}"
            );
            assert!(text.contains("50 candidate(s) on this branch, 0 unassigned"));
            assert!(text.contains("(3 more from episodes on other branches"));
        }
    }

    #[test]
    fn room_a_list_does_not_need_goes_to_the_others() {
        let mut b = briefing(1, 100, 0, 0);
        let text = render(&mut b);
        assert!(text.lines().count() <= 40, "{text}");
        // Everything but the fixed lines goes to the knowledge.
        assert!(b.knowledge.hits.len() >= 20, "{}", b.knowledge.hits.len());
    }

    #[test]
    fn unassigned_candidates_are_always_named() {
        let mut b = briefing(0, 0, 0, 0);
        b.candidates = (0..30)
            .map(|n| PendingCandidate {
                id: format!("c-{n:02}"),
                title: format!("Claim {n}"),
                episode: (n % 2 == 0).then(|| "E".to_owned()),
                branch: None,
                outbox: false,
            })
            .collect();
        b.budget_lines = 14;
        let text = render(&mut b);
        for c in b.candidates.iter().filter(|c| c.episode.is_none()) {
            assert!(
                text.contains(&format!(
                    "- {}: [candidate] ⟪{}⟫ (unassigned: this checkout does not know its episode)",
                    c.id, c.title
                )),
                "{} is hidden:\n{text}",
                c.id
            );
        }
        assert!(text.contains("30 candidate(s) on this branch, 15 unassigned"));
    }

    fn writer(n: usize) -> crate::journal::writers::WriterActivity {
        crate::journal::writers::WriterActivity {
            writer: format!("{n:016x}"),
            remote: "origin".into(),
            branch: Some("feature".into()),
            last_ts: Some("2026-11-30T10:00:00Z".into()),
            episode: None,
            closed: None,
            this_branch: false,
        }
    }

    #[test]
    fn other_writers_are_cut_with_the_command_that_lists_them() {
        for budget in [25, 30, 40] {
            let mut b = briefing(3, 5, 0, 0);
            b.writers = (0..30).map(writer).collect();
            b.writers_total = 30;
            b.budget_lines = budget;
            let text = render(&mut b);
            assert!(
                text.lines().count() <= budget as usize,
                "{budget}: {} lines\n{text}",
                text.lines().count()
            );
            assert!(text.contains("## Other writers (30)"), "{text}");
            let shown = b.writers.len();
            assert!(shown < 30, "{text}");
            assert_eq!(
                text.matches("- writer ").count(),
                shown,
                "every writer kept is shown once: {text}"
            );
            assert!(
                text.contains(&format!(
                    "- ... {} more: `majordomus journal status`",
                    30 - shown
                )),
                "{text}"
            );
        }
    }

    #[test]
    fn the_practice_opens_every_briefing_and_counts_against_the_budget() {
        assert_eq!(PRACTICE.lines().count() + 1, PRACTICE_LINES);
        for budget in [24, 40] {
            let mut b = briefing(2, 3, 1, 1);
            b.budget_lines = budget;
            let text = render(&mut b);
            assert!(text.starts_with(&format!("{PRACTICE}\n")), "{text}");
            assert!(text.lines().count() <= budget as usize, "{text}");
        }
    }

    #[test]
    fn allocation_is_weighted_and_capped_by_demand() {
        assert_eq!(
            allocate(10, &[(100, 2), (100, 1), (100, 1), (100, 1)]),
            [4, 2, 2, 2]
        );
        assert_eq!(
            allocate(10, &[(1, 2), (100, 1), (0, 1), (100, 1)]),
            [1, 5, 0, 4]
        );
        assert_eq!(allocate(0, &[(5, 2)]), [0]);
    }
}
