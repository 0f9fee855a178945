//! Integration tests of the `majordomus` command line: one binary (it links gix once), one
//! module per capability, all running the built binary against throwaway repositories.

mod common;

mod authored;
mod briefing;
mod briefing_accounting;
mod clients;
mod cockpit;
mod compat;
mod concurrency;
mod contract;
mod crash;
mod demo;
mod doctor;
mod env;
mod field;
mod handover;
mod help;
mod history;
mod hooks;
mod hostile;
mod http;
mod index;
mod init;
mod intent;
mod journal;
mod knowledge;
mod ledger;
mod lifecycle;
mod mcp;
mod mesh;
mod moment;
mod outbox;
mod policy;
mod reasoning;
mod recall;
mod registry;
mod retention;
mod review;
mod rules;
mod session;
mod setup;
mod sharing;
mod task;
mod timing;
mod worktrees;
