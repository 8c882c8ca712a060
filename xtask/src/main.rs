//! Workspace tasks, run as `cargo xtask <task>` (see `.cargo/config.toml`).
//!
//! `main` only dispatches: each task is one module, and errors bubble up here
//! to be printed once, with a non-zero exit status.

mod compare;
mod portable;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  compare    measure every filter and its peers; write docs/comparison.{md,csv} and charts
             (`cargo xtask compare --help` lists the options)
  portable   write DIR | check DIR: every filter kind's bytes, written by this build,
             loaded and queried by another (see .ci/portable-bytes)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("compare") => compare::run(&args[1..]),
        Some("portable") => portable::run(&args[1..]),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{USAGE}").into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
