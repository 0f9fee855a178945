//! Integration tests of the `majordomus` command line: one binary (it links gix once), one
//! module per capability, all running the built binary against throwaway repositories.

mod common;

mod authored;
mod compat;
mod concurrency;
mod crash;
mod demo;
mod doctor;
mod env;
mod field;
mod handover;
mod help;
mod history;
mod hooks;
mod index;
mod init;
mod knowledge;
mod ledger;
mod outbox;
mod policy;
mod reasoning;
mod registry;
mod retention;
mod session;
mod sharing;
mod timing;
