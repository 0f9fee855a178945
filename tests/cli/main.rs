//! Integration tests of the `majordomus` command line: one binary (it links gix once), one
//! module per capability, all running the built binary against throwaway repositories.

mod common;

mod authored;
mod demo;
mod env;
mod help;
mod history;
mod init;
mod ledger;
mod policy;
mod session;
