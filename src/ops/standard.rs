//! The standard registry: every capability majordomus has, one line each. An entry needs
//! an initialised repository unless it says `.anywhere()`; `.provider_hook()` declares an
//! agent client's hook, which never fails its client.

use super::{Operation, Registry, op};
use crate::error::Error;
use crate::{
    Ctx, authored, context, doctor, env, handover, history, hooks, init, intent, journal,
    knowledge, reasoning, recall, rules, session, setup, task, worktrees,
};

impl Registry {
    /// Every operation of this build, in the order `majordomus schema` lists them.
    pub fn standard() -> Registry {
        let mut r = Registry::default();
        r.register(op("init", "init", "Set up the .ai/ skeleton in this repository (idempotent; never overwrites a file).", init::init).writes().idempotent().admin().anywhere())
            .register(op("session.start", "session start", "Open an episode where no client hook opened one.", session::start).writes())
            .register(op("session.context", "session context", "The open episode's working context, composed now.", crate::moment::session_context_op))
            .register(op("session.snapshot", "session context", "The path of the open episode's opening snapshot.", session::snapshot))
            .register(op("session.list", "session list", "Every episode, newest first, with its session record.", session::list))
            .register(op("session.close", "session close", "Close the open episode: its record, then candidates.", session::close).writes())
            .register(op("session.recompose", "session recompose", "Compose a closed episode's record again with its own commits.", session::recompose).human_act().idempotent().destructive())
            .register(op("decision.record", "decision", "Record a decision, with the files it concerns.", authored::record_decision).writes().http("/api/v1/decisions"))
            .register(op("question.ask", "question", "Ask an open question; returns its id.", authored::ask_question).writes().http("/api/v1/questions"))
            .register(op("question.resolve", "question resolve", "Answer an open question.", authored::resolve_question).writes().http("/api/v1/questions/{id}/resolve"))
            .register(op("checkpoint.record", "checkpoint", "Record where the work stands.", authored::record_checkpoint).writes().http("/api/v1/checkpoints"))
            .register(op("task.start", "task start", "Start a task in the open episode.", crate::moment::task_start_op).writes())
            .register(op("task.finish", "task finish", "Finish the active task: completed, or blocked.", task::finish).writes())
            .register(op("task.list", "task list", "Every task of this checkout.", task::list))
            .register(op("intent.binding", "intent binding", "What a task would serve, derived now from the plan.", intent::binding).http("/api/v1/intents/binding"))
            .register(op("intent.validate", "intent validate", "Intents whose work began without a critique, or with blocking findings still open.", intent::validate).http("/api/v1/intents/validate"))
            .register(op("plan.start", "plan start", "Set an issue active, after the binding check.", intent::plan_start).writes().destructive())
            .register(op("handover.derive", "handover", "Write an episode's handover: what is done, what comes next.", handover::derive).writes())
            .register(op("handover.resolve", "handover", "Whether a handover's plan or evidence moved since.", handover::resolve))
            .register(op("reasoning.record", "reasoning record", "Record an assessment, disagreement, resolution, conclusion, validation or attempt.", reasoning::record).writes().http("/api/v1/reasoning/records"))
            .register(op("reasoning.advisors", "reasoning advisors", "The advisor catalogue and each advisor's availability now.", reasoning::advisors))
            .register(op("reasoning.plan", "reasoning plan", "Dry run of a plan: which advisors it would ask, and why.", reasoning::plan))
            .register(op("reasoning.plan-assessment", "reasoning plan", "Plan a recorded assessment: whom consult would ask, and why.", reasoning::plan_assessment).writes().http("/api/v1/reasoning/plan"))
            .register(op("reasoning.consult", "reasoning consult", "Consult the advisors an assessment's plan selects (programs, mesh peers), under a deadline.", reasoning::consult).writes().open_world())
            .register(op("mesh.link", "mesh link", "Link this checkout's runtime, offering reviews; stays linked until interrupted.", crate::mesh::link).writes().idempotent().admin().open_world().http("/api/v1/runtime/link"))
            .register(op("mesh.unlink", "mesh unlink", "Unlink this checkout's runtime; requests waiting for it fail as unavailable.", crate::mesh::unlink).writes().idempotent().admin().open_world().http("/api/v1/runtime/unlink"))
            .register(op("mesh.status", "mesh status", "The server, its linked runtimes (live or gone) and what they offer.", crate::mesh::status).open_world().http("/api/v1/runtime/status"))
            .register(op("mesh.requests", "mesh requests", "Review requests waiting for this runtime.", crate::mesh::requests).open_world().http("/api/v1/runtime/requests"))
            .register(op("mesh.answer", "mesh answer", "Answer a review request waiting for this runtime; the first answer counts.", crate::mesh::answer).writes().open_world().http("/api/v1/runtime/answer"))
            .register(op("reasoning.status", "reasoning status", "The work's reasoning: assessments, consultations, conclusions.", reasoning::status).mcp("majordomus_reasoning").http("/api/v1/reasoning"))
            .register(op("reasoning.explain", "reasoning explain", "The provenance chain of one conclusion.", reasoning::explain))
            .register(op("reasoning.check", "reasoning check", "No provider-independent source names an advisor; no CI a model credential.", reasoning::check))
            .register(op("recall", "recall", "Before deciding or changing an area: what earlier episodes decided and verified there.", crate::moment::recall_op))
            .register(op("recall.shown", "recall", "What the memory put before the model in an episode.", crate::moment::shown).http("/api/v1/recall/shown"))
            .register(op("recall.show", "show", "Read one recall hit whole (<kind>:<id>).", recall::show).http("/api/v1/recall/show"))
            .register(op("worktrees", "worktrees", "What the other worktrees of this clone are doing now.", worktrees::list))
            .register(op("history", "history", "Read the ledger, oldest first, filtered by event, episode or time.", history::history))
            .register(op("briefing", "briefing", "The session-start briefing: how to work here, and what is known.", crate::moment::briefing_op))
            .register(op("context", "context", "The briefing, then reasoning, knowledge, outbox and intent.", context::context))
            .register(op("knowledge.derive", "knowledge derive", "Derive an episode's knowledge candidates.", knowledge::derive).writes().idempotent())
            .register(op("knowledge.promote", "knowledge promote", "Promote a candidate to curated knowledge, with evidence (a human act).", knowledge::promote).human_act().http("/api/v1/knowledge/{id}/promote"))
            .register(op("knowledge.reject", "knowledge reject", "Reject a candidate with a reason; it stays, marked superseded (a human act).", knowledge::reject).human_act().http("/api/v1/knowledge/{id}/reject"))
            .register(op("knowledge.review", "knowledge promote", "Review many candidates in one act: promote or reject them by ids or by the listed selection, optionally in one commit (a human act).", knowledge::review).human_act().http("/api/v1/knowledge/review"))
            .register(op("knowledge.reverify", "knowledge reverify", "Record that a verified record still holds at HEAD: the verifying commit and the evidence (a human act).", knowledge::reverify).human_act().http("/api/v1/knowledge/{id}/reverify"))
            .register(op("knowledge.supersede", "knowledge supersede", "Replace verified records by another verified record, the reason on stdin (a human act).", knowledge::supersede).human_act())
            .register(op("knowledge.retire", "knowledge retire", "Take verified records that no longer hold out of what is claimed, with a reason (a human act).", knowledge::retire).human_act())
            .register(op("knowledge.verified", "knowledge verified", "Verified records still claimed, oldest verified first; stale ones marked.", knowledge::verified).people_only())
            .register(op("knowledge.check", "knowledge check", "Check every knowledge record and its references.", knowledge::check))
            .register(op("knowledge.candidates", "knowledge candidates", "Candidates awaiting review.", knowledge::candidates))
            .register(op("knowledge.status", "knowledge status", "Freshness, review queue length and ages, and the outbox.", knowledge::status))
            .register(op("knowledge.show", "knowledge show", "One knowledge record, whole.", knowledge::show).http("/api/v1/knowledge/{id}"))
            .register(op("knowledge.edges", "knowledge edges", "The knowledge graph: records and their typed edges.", knowledge::edges))
            .register(op("doctor", "doctor", "Run every rule of the effective set (the vendored package and project rules), grouped; blocking findings fail.", doctor::doctor))
            .register(op("rules.vendor-update", "rules vendor update", "Refresh the vendored rule package from the one built into majordomus, saying which rules changed.", rules::vendor_update).writes().admin())
            .register(op("journal.enable", "journal enable", "Share this checkout's ledger through git: policy journal.share, the remote's fetch refspec, the enable point.", journal::enable).writes().idempotent().admin())
            .register(op("journal.disable", "journal disable", "Stop sharing: policy journal.share false, the fetch refspec removed; nothing is deleted.", journal::disable).writes().idempotent().admin())
            .register(op("journal.status", "journal status", "This writer's journal and every fetched writer's.", journal::status))
            .register(op("journal.publish", "journal publish", "Publish the ledger lines not yet in this writer's journal ref, as one segment.", journal::publish).writes().idempotent().admin())
            .register(op("journal.restore", "journal restore", "Rebuild this checkout's ledger from its own journal, byte for byte.", journal::restore).writes().destructive().admin())
            .register(op("journal.prune", "journal prune", "Drop published segments older than ledger.retention_days from this writer's ref (dry run unless apply).", journal::prune).writes().destructive().admin())
            .register(op("env", "env", "Versions, repository, HEAD, trunk, open episode and ledger, as majordomus sees them.", env::env).anywhere())
            .register(op("hooks.install", "hooks install", "Install the git hooks into the directory git uses, keeping what was there.", hooks::install).writes().idempotent().admin())
            .register(op("hooks.acknowledge", "hooks acknowledge", "Acknowledge the recorded provider hook failures doctor shows, up to a ledger seq (a human act).", hooks::acknowledge).writes().human_act().idempotent())
            .register(op("hooks.uninstall", "hooks uninstall", "Remove the git hooks: every hook file as it was before install, byte for byte.", hooks::uninstall).writes().idempotent().destructive().admin().anywhere())
            .register(op("setup", "setup", "Wire an agent client: its session hooks and the MCP server, merged into its files.", setup).writes().idempotent().entry_point().admin().anywhere())
            .register(op("hook.post-commit", "hook post-commit", "Git post-commit: record the new commit for the open episode.", hooks::post_commit).writes().entry_point().anywhere())
            .register(op("hook.pre-push", "hook pre-push", "Git pre-push: check the knowledge records being pushed; blocking findings refuse the push.", hooks::pre_push).entry_point().anywhere())
            .register(op("hook.post-rewrite", "hook post-rewrite", "Git post-rewrite: record git's <old> <new> pairs (amend, rebase) as commit.rewritten.", hooks::post_rewrite).writes().entry_point().anywhere())
            .register(op("hook.session-start", "hook session-start", "Agent client session start: open an episode and print the briefing.", hooks::session_start).writes().provider_hook())
            .register(op("hook.session-end", "hook session-end", "Agent client session end: a checkpoint, then close the episode and derive its handover.", hooks::session_end).writes().provider_hook())
            .register(op("hook.compact", "hook compact", "Agent client compaction: a checkpoint and the open episode's knowledge derived so far.", hooks::compact).writes().provider_hook())
            .register(op("hook.prompt", "hook prompt", "Agent client prompt submitted: the records its words and the work at hand rank above the floor, for the model.", hooks::prompt).writes().provider_hook())
            .register(op("hook.edit", "hook edit", "Agent client file edit: the files recorded as touched, and what is verified or decided about them, for the model.", hooks::edit).writes().provider_hook());
        r
    }
}

/// `setup`, told which tools an agent may call unasked: the registry knows them, and setup
/// sits below it.
fn setup(ctx: &Ctx, mut request: setup::SetupRequest) -> Result<setup::SetupReport, Error> {
    request.unasked = Registry::standard()
        .iter()
        .filter(|op| op.runs_unasked())
        .map(Operation::tool_name)
        .collect();
    setup::setup(ctx, request)
}
