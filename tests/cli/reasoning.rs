//! Reasoning (SPEC §7) through the CLI: the writer and its refusals, the budget table,
//! the circuit, consulting fixture and process advisors under a deadline, disagreement
//! settled by experiment, secrets and credentials.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Run, TestRepo};

/// Two fixture advisors (and room for more) in the repository's own catalogue.
const CATALOGUE: &str = "advisors:
  - id: alpha
    title: Alpha reviewer
    adapter: fixture
    capabilities: [independent_reasoning]
  - id: beta
    title: Beta reviewer
    adapter: fixture
    capabilities: [independent_reasoning, code_review]
  - id: gamma
    title: Gamma reviewer
    adapter: fixture
    capabilities: [independent_reasoning]
";

struct Bench {
    repo: TestRepo,
    fixtures: PathBuf,
}

impl Bench {
    fn new(catalogue: &str) -> Bench {
        let repo = TestRepo::initialised();
        repo.write(".ai/repo/advisors.yaml", catalogue);
        let fixtures = repo.base().join("fixtures");
        std::fs::create_dir_all(&fixtures).expect("fixtures dir");
        repo.start_episode();
        Bench { repo, fixtures }
    }

    fn answer(&self, advisor: &str, answer: Value) {
        std::fs::write(
            self.fixtures.join(format!("{advisor}.json")),
            answer.to_string(),
        )
        .expect("write a fixture");
    }

    fn run(&self, args: &[&str], stdin: &str) -> Run {
        let fixtures = self.fixtures.display().to_string();
        self.repo.run_env(
            args,
            &[
                ("MAJORDOMUS_ADVISOR_FIXTURES", fixtures.as_str()),
                ("MAJORDOMUS_REASONING_MODE", "standard"),
            ],
            stdin,
        )
    }

    fn record(&self, record: Value) -> Value {
        self.run(
            &["--format", "json", "reasoning", "record"],
            &record.to_string(),
        )
        .success()
        .json()
    }

    fn refused(&self, record: Value, rule: &str) -> Value {
        self.run(
            &["--format", "json", "reasoning", "record"],
            &record.to_string(),
        )
        .json_error(3, rule)
    }

    fn assessment(&self, materiality: &str) -> String {
        self.record(json!({
            "kind": "assessment",
            "subject": "Why is ingest slow?",
            "materiality": materiality,
            "confidence": "medium",
            "hypothesis": "The ledger lock serialises writers",
            "evidence": ["command:cargo bench => 40% of the time waits on the lock"],
        }))["id"]
            .as_str()
            .expect("an id")
            .to_owned()
    }
}

#[test]
fn the_writer_refuses_what_the_spec_refuses_each_by_its_rule() {
    let b = Bench::new(CATALOGUE);
    b.refused(
        json!({"kind": "assessment", "subject": "s", "materiality": "high", "confidence": "low", "hypothesis": "h"}),
        "reasoning.assessment-evidence",
    );
    b.refused(
        json!({"kind": "plan", "assessment": "assessment-0123456789ab"}),
        "reasoning.plan-computed",
    );
    b.refused(
        json!({"kind": "attempt", "tried": "t", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h", "id": "attempt-000000000000"}),
        "reasoning.computed-field",
    );
    b.refused(
        json!({"kind": "attempt", "tried": "t", "failure": "f", "invalidated_assumption": "a", "updated_hypothesis": "h", "colour": "red"}),
        "reasoning.unknown-field",
    );
    b.refused(
        json!({"kind": "resolution", "disagreement": "disagreement-0123456789ab", "experiment": "e", "result": "r", "favours": "none", "evidence": []}),
        "reasoning.resolution-evidence",
    );
    let error = b.refused(json!({"kind": "gossip"}), "reasoning.record-shape");
    assert!(
        error["fix"].as_str().is_some_and(|f| !f.is_empty()),
        "{error}"
    );
    // Not JSON at all is a usage error.
    b.run(&["--format", "json", "reasoning", "record"], "not json")
        .json_error(2, "usage");
}

#[test]
fn two_against_one_the_majority_never_settles_it_an_experiment_does() {
    let b = Bench::new(CATALOGUE);
    b.answer("alpha", json!({"answer": {"conclusion": "The lock is the bottleneck", "stance": "supports", "usage": {"input_tokens": 100, "output_tokens": 20}}}));
    b.answer(
        "beta",
        json!({"answer": {"conclusion": "It is the lock", "stance": "supports"}}),
    );
    b.answer("gamma", json!({"answer": {"conclusion": "It is the allocator", "stance": "opposes", "falsifiers": ["a run with a bump allocator"]}}));
    let a = b.assessment("critical");
    // strict mode: three advisors for a critical question.
    let fixtures = b.fixtures.display().to_string();
    let consulted = b
        .repo
        .run_env(
            &[
                "--format",
                "json",
                "reasoning",
                "consult",
                "--assessment",
                &a,
            ],
            &[
                ("MAJORDOMUS_ADVISOR_FIXTURES", &fixtures),
                ("MAJORDOMUS_REASONING_MODE", "strict"),
            ],
            "",
        )
        .success()
        .json();
    let consultations = consulted["consultations"]
        .as_array()
        .expect("consultations");
    assert_eq!(consultations.len(), 3, "{consulted}");
    let advisors: Vec<&str> = consultations
        .iter()
        .filter_map(|c| c["advisor"].as_str())
        .collect();
    assert_eq!(
        advisors,
        ["alpha", "beta", "gamma"],
        "recorded in plan order"
    );
    let disagreement = consulted["disagreement"]["id"]
        .as_str()
        .expect("a disagreement")
        .to_owned();
    let weighed: Vec<String> = consultations
        .iter()
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect();
    let conclusion = json!({
        "kind": "conclusion",
        "assessment": a,
        "decision": "Shard the ledger lock",
        "rationale": "two advisors agree",
        "evidence": ["command:cargo bench => 40% lock wait"],
        "consultations": weighed,
        "validation_plan": "bench again after sharding",
    });
    // Two supporting advisors out of three: still refused.
    b.refused(conclusion.clone(), "reasoning.conclusion-disputed");
    // The experiment decides for the minority.
    b.record(json!({
        "kind": "resolution",
        "disagreement": disagreement,
        "experiment": "ran ingest with a bump allocator",
        "result": "throughput doubled; lock wait unchanged",
        "favours": "gamma",
        "evidence": ["command:cargo bench --features bump => 2x throughput"],
    }));
    let concluded = b.record(json!({
        "kind": "conclusion",
        "assessment": a,
        "decision": "Switch to a bump allocator for ingest",
        "rationale": "the experiment favoured the allocator",
        "evidence": ["command:cargo bench --features bump => 2x throughput"],
        "consultations": weighed,
        "validation_plan": "bench after the switch",
    }));
    assert_eq!(concluded["reviewed_by"], json!(["alpha", "beta", "gamma"]));
    assert_eq!(concluded["independent_review_count"], 3);
    // A caller may not claim a review.
    let mut claimed = conclusion.clone();
    claimed["reviewed_by"] = json!(["alpha"]);
    b.refused(claimed, "reasoning.computed-field");

    let status = b
        .run(&["--format", "json", "reasoning", "status"], "")
        .success()
        .json();
    assert_eq!(status["assessments"][0]["state"], "concluded", "{status}");
    assert_eq!(status["tokens"]["input_tokens"], 100);
    let explained = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "explain",
                concluded["id"].as_str().expect("id"),
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(explained["resolutions"].as_array().map(Vec::len), Some(1));
    assert_eq!(explained["consultations"].as_array().map(Vec::len), Some(3));
    let context = b.run(&["context"], "").success();
    assert!(
        context.stdout().contains("## REASONING\n- assessment-"),
        "{context}"
    );
}

#[test]
fn every_mode_and_materiality_cell_of_the_budget() {
    let b = Bench::new(CATALOGUE);
    let table = [
        ("ci", [0, 0, 0, 0, 0]),
        ("fast", [0, 0, 0, 1, 1]),
        ("standard", [0, 0, 1, 2, 2]),
        ("offline", [0, 0, 1, 2, 2]),
        ("strict", [0, 0, 1, 2, 3]),
    ];
    let materialities = ["trivial", "low", "material", "high", "critical"];
    for (mode, budgets) in table {
        for (materiality, budget) in materialities.iter().zip(budgets) {
            let plan = b
                .repo
                .run_env(
                    &[
                        "--format",
                        "json",
                        "reasoning",
                        "plan",
                        "--materiality",
                        materiality,
                    ],
                    &[("MAJORDOMUS_REASONING_MODE", mode)],
                    "",
                )
                .success()
                .json();
            assert_eq!(
                plan["decision"]["budget"], budget,
                "{mode} × {materiality}: {plan}"
            );
        }
    }
    // High confidence lowers the budget by one.
    let plan = b
        .repo
        .run_env(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--materiality",
                "high",
                "--confidence",
                "high",
            ],
            &[("MAJORDOMUS_REASONING_MODE", "standard")],
            "",
        )
        .success()
        .json();
    assert_eq!(plan["decision"]["budget"], 1);
    // CI set means mode ci: nobody is consulted, and the plan says why.
    let plan = b
        .repo
        .run_env(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--materiality",
                "critical",
            ],
            &[("CI", "true")],
            "",
        )
        .success()
        .json();
    assert_eq!(plan["decision"]["mode"], "ci");
    assert_eq!(plan["decision"]["selected"], json!([]));
    assert!(plan["decision"]["local_review"].is_object(), "{plan}");
}

#[test]
fn the_circuit_opens_after_two_transient_failures_and_recovers_after_the_cooldown() {
    let mut b = Bench::new(
        "advisors:\n  - id: alpha\n    title: Alpha\n    adapter: fixture\n    capabilities: [independent_reasoning]\n",
    );
    b.answer(
        "alpha",
        json!({"failure": {"kind": "timeout", "diagnostic": "slow"}}),
    );
    let a = b.assessment("material");
    for _ in 0..2 {
        b.run(&["reasoning", "consult", "--assessment", &a], "")
            .success();
        b.repo.now("2026-11-30T10:01:00Z");
    }
    let advisors = b
        .run(&["--format", "json", "reasoning", "advisors"], "")
        .success()
        .json();
    assert_eq!(
        advisors["advisors"][0]["availability"]["status"], "temporarily_failed",
        "{advisors}"
    );
    // Planned now, alpha is left out, with the reason.
    let plan = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--materiality",
                "material",
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(plan["decision"]["selected"], json!([]), "{plan}");
    assert!(
        plan["decision"]["not_selected"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("temporarily_failed")),
        "{plan}"
    );
    // Ten minutes later: recovering, admissible again.
    b.repo.now("2026-11-30T10:12:00Z");
    let advisors = b
        .run(&["--format", "json", "reasoning", "advisors"], "")
        .success()
        .json();
    assert_eq!(
        advisors["advisors"][0]["availability"]["status"], "recovering",
        "{advisors}"
    );
    // An override shortens every cooldown.
    b.repo.now("2026-11-30T10:01:30Z");
    let fixtures = b.fixtures.display().to_string();
    let advisors = b
        .repo
        .run_env(
            &["--format", "json", "reasoning", "advisors"],
            &[
                ("MAJORDOMUS_ADVISOR_FIXTURES", &fixtures),
                ("MAJORDOMUS_REASONING_COOLDOWN_SECONDS", "10"),
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(
        advisors["advisors"][0]["availability"]["status"], "recovering",
        "{advisors}"
    );
    // Disabled by the environment.
    let advisors = b
        .repo
        .run_env(
            &["--format", "json", "reasoning", "advisors"],
            &[("MAJORDOMUS_ADVISORS_DISABLE", "alpha")],
            "",
        )
        .success()
        .json();
    assert_eq!(
        advisors["advisors"][0]["availability"]["status"], "disabled",
        "{advisors}"
    );
}

#[test]
fn a_fixture_past_the_deadline_is_a_timeout_within_the_deadline() {
    let b = Bench::new(
        "advisors:\n  - id: alpha\n    title: Alpha\n    adapter: fixture\n    capabilities: [independent_reasoning]\n",
    );
    b.answer(
        "alpha",
        json!({"answer": {"conclusion": "late", "stance": "supports"}, "delay_ms": 30000}),
    );
    let a = b.assessment("material");
    // The answer would come after 30 s; the status says the 1-second deadline ended the
    // wait (a wait for the answer would have said `completed`).
    let consulted = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "consult",
                "--assessment",
                &a,
                "--timeout",
                "1",
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(
        consulted["consultations"][0]["status"], "timeout",
        "{consulted}"
    );
}

#[test]
fn a_process_advisor_that_ignores_its_deadline_is_killed_with_its_group() {
    let repo = TestRepo::initialised();
    let script = repo.base().join("stubborn-advisor");
    let marker = repo.base().join("grandchild.pid");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntrap '' TERM INT\nsleep 300 &\necho $! > {}\nwait\n",
            marker.display()
        ),
    )
    .expect("write the script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    repo.write(
        ".ai/repo/advisors.yaml",
        &format!(
            "advisors:\n  - id: stubborn\n    title: Stubborn\n    adapter: process\n    executable: {}\n    local: true\n    capabilities: [independent_reasoning]\n",
            script.display()
        ),
    );
    repo.start_episode();
    let a = repo
        .run_with_stdin(
            &["--format", "json", "reasoning", "record"],
            &json!({"kind": "assessment", "subject": "s", "materiality": "material", "confidence": "low", "hypothesis": "h", "evidence": ["observation:it hangs"]}).to_string(),
        )
        .success()
        .json()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // It never ends by itself (its child sleeps 300 s): the status says the deadline
    // ended it, and the child is gone below.
    let consulted = repo
        .run(&[
            "--format",
            "json",
            "reasoning",
            "consult",
            "--assessment",
            &a,
            "--timeout",
            "1",
        ])
        .success()
        .json();
    assert_eq!(
        consulted["consultations"][0]["status"], "timeout",
        "{consulted}"
    );
    let pid = std::fs::read_to_string(&marker).expect("the grandchild's pid");
    // Killed means gone or a zombie awaiting its reaper (a container's init may not reap).
    let stat = format!("/proc/{}/stat", pid.trim());
    let running = || {
        std::fs::read_to_string(&stat).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
        })
    };
    let settled = Instant::now();
    while running() && settled.elapsed() < crate::common::WAIT {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(), "the advisor's own child survived the deadline");
}

#[test]
fn secrets_are_redacted_from_every_stored_string_and_credentials_never_read() {
    let b = Bench::new(
        "advisors:\n  - id: alpha\n    title: Alpha\n    adapter: fixture\n    credential: ALPHA_API_KEY\n    capabilities: [independent_reasoning]\n",
    );
    let sentinel = "s3ntinel-credential-value-0123456789";
    let aws = ["AKIA", "IOSFODNN7", "EXAMPLE"].concat();
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    let bearer = ["Authorization: Bearer ", "abcdef0123456789abcdef0123456789"].concat();
    let url = "https://ada:hunter2hunter2@example.com/repo";
    let written = b.record(json!({
        "kind": "attempt",
        "tried": format!("deploy with {aws}"),
        "failure": format!("the header was {bearer}"),
        "invalidated_assumption": format!("the key {pem} is valid"),
        "updated_hypothesis": format!("the remote {url} rejects us"),
    }));
    let redacted: Vec<&str> = written["redacted"]
        .as_array()
        .expect("redacted")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for shape in [
        "aws-access-key-id",
        "bearer-token",
        "private-key",
        "url-password",
    ] {
        assert!(
            redacted.contains(&shape),
            "{shape} missing from {redacted:?}"
        );
    }
    let fixtures = b.fixtures.display().to_string();
    let env_run = b.repo.run_env(
        &["--format", "json", "reasoning", "advisors"],
        &[
            ("MAJORDOMUS_ADVISOR_FIXTURES", &fixtures),
            ("ALPHA_API_KEY", sentinel),
        ],
        "",
    );
    assert_eq!(
        env_run.json()["advisors"][0]["availability"]["status"],
        "available"
    );
    let env = b.repo.run_env(&["env"], &[("ALPHA_API_KEY", sentinel)], "");
    for text in [
        env_run.stdout(),
        env_run.stderr(),
        env.stdout(),
        env.stderr(),
    ] {
        assert!(!text.contains(sentinel), "a credential value leaked");
    }
    let files = b.repo.all_files();
    assert!(
        files.contains_key(".ai/local/state/ledger-index.json"),
        "the scan covers the ledger index"
    );
    for (path, (bytes, _)) in files {
        let text = String::from_utf8_lossy(&bytes);
        for secret in [
            aws.as_str(),
            "hunter2hunter2",
            "MIIEowIBAAKCAQEA",
            "abcdef0123456789abcdef0123456789",
            sentinel,
        ] {
            assert!(!text.contains(secret), "{path} keeps `{secret}`");
        }
    }
}

#[test]
fn a_new_advisor_is_a_catalogue_edit_only() {
    let b = Bench::new(CATALOGUE);
    let mut catalogue = CATALOGUE.to_owned();
    catalogue.push_str("  - id: delta\n    title: Delta reviewer\n    adapter: fixture\n    capabilities: [independent_reasoning, security_review]\n");
    b.repo.write(".ai/repo/advisors.yaml", &catalogue);
    let advisors = b
        .run(&["--format", "json", "reasoning", "advisors"], "")
        .success()
        .json();
    assert!(
        advisors["advisors"]
            .as_array()
            .expect("advisors")
            .iter()
            .any(|a| a["id"] == "delta"),
        "{advisors}"
    );
    let plan = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--materiality",
                "high",
                "--capabilities",
                "security_review",
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(plan["decision"]["selected"][0], "delta", "{plan}");
    let env = b.run(&["env"], "").success();
    assert!(env.stdout().contains("delta available"), "{env}");

    // The surfaces follow with no code: MCP's advisors tool and the HTTP route.
    let names = |list: &serde_json::Value| -> Vec<String> {
        list["advisors"]
            .as_array()
            .expect("advisors")
            .iter()
            .filter_map(|a| a["id"].as_str().map(str::to_owned))
            .collect()
    };
    let mut mcp = crate::mcp::Mcp::start(&b.repo);
    let result = mcp.call("majordomus_reasoning_advisors", json!({}));
    assert!(
        names(&result["structuredContent"]).contains(&"delta".to_owned()),
        "{result}"
    );
    let served = crate::http::Served::start(&b.repo);
    let answer = served.get("/api/v1/reasoning/advisors");
    assert_eq!(answer.status, 200);
    assert!(
        names(&answer.json()).contains(&"delta".to_owned()),
        "{:?}",
        answer.json()
    );
}

#[test]
fn reasoning_check_runs_only_where_advisors_are_declared_optional() {
    let repo = TestRepo::initialised();
    let run = repo
        .run(&["--format", "json", "reasoning", "check"])
        .success()
        .json();
    assert_eq!(run["declared"], false);
    assert!(
        run["note"].as_str().is_some_and(|n| n.contains("adopter")),
        "{run}"
    );

    repo.write(
        ".ai/repo/rules/project/advisors.yaml",
        "rules:\n  - id: project.advisors-are-optional\n    severity: blocking\n    description: Advisors are optional.\n",
    );
    // The shipped catalogue's first executable and credential (read, not spelled here:
    // this file is a provider-independent source of the repository that ships it).
    let shipped = include_str!("../../share/advisors.yaml");
    let value_of = |key: &str| {
        shipped
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(|v| v.trim().to_owned())
            .expect("the shipped catalogue has the key")
    };
    repo.write(
        "src/lib.rs",
        &format!("// calls {} directly\n", value_of("executable:")),
    );
    repo.write(
        ".github/workflows/ci.yml",
        &format!(
            "env:\n  {}: ${{{{ secrets.KEY }}}}\n",
            value_of("credential:")
        ),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Name an advisor"]);
    let run = repo.run(&["--format", "json", "reasoning", "check"]);
    assert_eq!(run.code(), 3, "{run}");
    let json = run.json();
    let rules: Vec<&str> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains(&"reasoning.provider-independent"), "{json}");
    assert!(rules.contains(&"reasoning.ci-credential"), "{json}");

    // doctor runs the same check under the declared rule, with its severity.
    let run = repo.run(&["--format", "json", "doctor"]);
    assert_eq!(run.code(), 10, "{run}");
    let report = run.json();
    let rule = report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "project.advisors-are-optional")
        .expect("the declared rule ran")
        .clone();
    assert_eq!(rule["status"], "fail", "{rule}");
    assert_eq!(rule["declared_in"], ".ai/repo/rules/project/advisors.yaml");
    let found: Vec<&str> = rule["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "blocking")
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(found.contains(&"reasoning.provider-independent"), "{rule}");
    assert!(found.contains(&"reasoning.ci-credential"), "{rule}");
}

#[test]
fn a_signal_cancels_the_consult_keeps_what_answered_and_kills_the_rest() {
    let repo = TestRepo::initialised();
    let fixtures = repo.base().join("fixtures");
    std::fs::create_dir_all(&fixtures).expect("fixtures dir");
    let script = repo.base().join("slow-advisor");
    let marker = repo.base().join("slow.pid");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 300 &\necho $! > {}\nwait\n",
            marker.display()
        ),
    )
    .expect("write the script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    repo.write(
        ".ai/repo/advisors.yaml",
        &format!(
            "advisors:\n  - id: quick\n    title: Quick\n    adapter: fixture\n    capabilities: [independent_reasoning]\n  - id: slow\n    title: Slow\n    adapter: process\n    executable: {}\n    local: true\n    capabilities: [independent_reasoning]\n",
            script.display()
        ),
    );
    std::fs::write(
        fixtures.join("quick.json"),
        json!({"answer": {"conclusion": "the lock", "stance": "supports"}}).to_string(),
    )
    .expect("fixture");
    repo.start_episode();
    let a = repo
        .run_with_stdin(
            &["--format", "json", "reasoning", "record"],
            &json!({"kind": "assessment", "subject": "s", "materiality": "high", "confidence": "low", "hypothesis": "h", "evidence": ["observation:it hangs"]}).to_string(),
        )
        .success()
        .json()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let fixtures = fixtures.display().to_string();
    let child = repo.spawn_env(
        &[
            "--format",
            "json",
            "reasoning",
            "consult",
            "--assessment",
            &a,
        ],
        &[
            ("MAJORDOMUS_ADVISOR_FIXTURES", &fixtures),
            ("MAJORDOMUS_REASONING_MODE", "standard"),
        ],
    );
    // Once the slow advisor is running, interrupt the consult as Ctrl-C would.
    let started = Instant::now();
    while !marker.exists() && started.elapsed() < crate::common::WAIT {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(marker.exists(), "the slow advisor never started");
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let run = Run::from_child("majordomus reasoning consult", child);
    let error = run.json_error(1, "interrupted");
    let message = error["message"].as_str().expect("message");
    assert!(message.contains("interrupted by SIGINT"), "{error}");
    assert!(message.contains("1 cancelled: slow"), "{error}");
    assert!(
        error["fix"]
            .as_str()
            .is_some_and(|f| f.starts_with("majordomus reasoning status")),
        "{error}"
    );
    // What answered is kept; the interrupted advisor is `cancelled`, which never counts
    // against it.
    let status = repo
        .run(&["--format", "json", "reasoning", "status"])
        .success()
        .json();
    let outcomes: Vec<(String, String)> = status["consultations"]
        .as_array()
        .expect("consultations")
        .iter()
        .map(|c| {
            (
                c["advisor"].as_str().unwrap_or("").to_owned(),
                c["status"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("quick".to_owned(), "completed".to_owned()),
            ("slow".to_owned(), "cancelled".to_owned())
        ],
        "{status}"
    );
    let advisors = repo
        .run(&["--format", "json", "reasoning", "advisors"])
        .success()
        .json();
    let slow = advisors["advisors"]
        .as_array()
        .expect("advisors")
        .iter()
        .find(|a| a["id"] == "slow")
        .expect("slow")
        .clone();
    assert_eq!(slow["availability"]["status"], "available", "{slow}");
    let grandchild = std::fs::read_to_string(&marker).expect("the sleep's pid");
    let stat = format!("/proc/{}/stat", grandchild.trim());
    let running = || {
        std::fs::read_to_string(&stat).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
        })
    };
    let settled = Instant::now();
    while running() && settled.elapsed() < crate::common::WAIT {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(), "the cancelled advisor's child survived");
}

/// The id of a `--format json` write.
fn id_of(written: &Value) -> String {
    written["id"].as_str().expect("an id").to_owned()
}

#[test]
fn a_consultation_is_written_by_consult_only_on_every_surface() {
    let b = Bench::new(CATALOGUE);
    let a = b.assessment("high");
    let planned = b
        .run(
            &["--format", "json", "reasoning", "plan", "--assessment", &a],
            "",
        )
        .success()
        .json();
    assert_eq!(planned["decision"]["selected"], json!(["alpha", "beta"]));
    let plan = id_of(&planned["plan"]);
    let invented = |advisor: &str| {
        json!({"kind": "consultation", "plan": plan, "advisor": advisor, "status": "completed",
            "conclusion": "The lock, certainly", "stance": "supports", "duration_ms": 1200})
    };
    let fix = format!("majordomus reasoning consult --assessment {a}");
    // The CLI: two hand-written reviews would have counted two independent reviews.
    for advisor in ["alpha", "beta"] {
        let error = b.refused(invented(advisor), "reasoning.consultation-by-consult");
        assert_eq!(error["fix"], fix.as_str(), "{error}");
    }
    let run = b.run(&["reasoning", "record"], &invented("alpha").to_string());
    run.assert_human_error(3, "consultations are written by `reasoning consult`");
    assert!(run.stderr().contains(&format!("fix: {fix}")), "{run}");
    // MCP and HTTP are the same operation.
    let mut mcp = crate::mcp::Mcp::start(&b.repo);
    let refused = mcp.call(
        "majordomus_reasoning_record",
        json!({"record": invented("alpha")}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["rule"],
        "reasoning.consultation-by-consult"
    );
    mcp.close();
    let served = crate::http::Served::start(&b.repo);
    let answer = served.post(
        "/api/v1/reasoning/records",
        &json!({"record": invented("beta")}),
    );
    let error = answer.error(409, "reasoning.consultation-by-consult");
    assert_eq!(error["fix"], fix.as_str());
    drop(served);
    let status = b
        .run(&["--format", "json", "reasoning", "status"], "")
        .success()
        .json();
    assert_eq!(status["consultations"], json!([]), "nothing was stored");

    // The fix, run as printed, consults the advisors; their answers are what count.
    b.answer(
        "alpha",
        json!({"answer": {"conclusion": "The lock", "stance": "supports"}}),
    );
    b.answer("beta", json!({"failure": {"kind": "timeout"}}));
    let command = fix.split(" (").next().expect("a command");
    let mut args = vec!["--format", "json"];
    args.extend(command.split(' ').skip(1));
    let consulted = b.run(&args, "").success().json();
    let weighed: Vec<String> = consulted["consultations"]
        .as_array()
        .expect("consultations")
        .iter()
        .map(id_of)
        .collect();
    assert_eq!(weighed.len(), 2, "{consulted}");
    let concluded = b.record(json!({
        "kind": "conclusion", "assessment": a, "decision": "Shard the lock",
        "rationale": "alpha supports it; beta did not answer",
        "evidence": ["command:cargo bench => 40% lock wait"],
        "consultations": weighed, "validation_plan": "bench again",
    }));
    assert_eq!(concluded["reviewed_by"], json!(["alpha"]));
    assert_eq!(concluded["independent_review_count"], 1);
}

#[test]
fn the_consult_fix_names_the_task_the_records_belong_to() {
    let b = Bench::new(CATALOGUE);
    let started = b
        .run(
            &["--format", "json", "task", "start", "Speed up ingest"],
            "",
        )
        .success()
        .json();
    let task = started["task"]["id"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let a = b.assessment("high");
    let planned = b
        .run(
            &["--format", "json", "reasoning", "plan", "--assessment", &a],
            "",
        )
        .success()
        .json();
    let plan = id_of(&planned["plan"]);
    b.run(&["task", "finish"], "").success();
    // Written to the finished task by name: the fix must name it too.
    let invented = json!({"kind": "consultation", "plan": plan, "advisor": "alpha",
        "status": "completed", "conclusion": "yes", "stance": "supports", "duration_ms": 1});
    let error = b
        .run(
            &["--format", "json", "reasoning", "record", "--task", &task],
            &invented.to_string(),
        )
        .json_error(3, "reasoning.consultation-by-consult");
    let fix = error["fix"].as_str().expect("a fix");
    let command = fix.split(" (").next().expect("a command");
    assert_eq!(
        command,
        format!("majordomus reasoning consult --assessment {a} --task {task}")
    );
    b.answer(
        "alpha",
        json!({"answer": {"conclusion": "The lock", "stance": "supports"}}),
    );
    b.answer(
        "beta",
        json!({"answer": {"conclusion": "The lock", "stance": "supports"}}),
    );
    let mut args = vec!["--format", "json"];
    args.extend(command.split(' ').skip(1));
    let consulted = b.run(&args, "").success().json();
    assert_eq!(
        consulted["consultations"].as_array().map(Vec::len),
        Some(2),
        "{consulted}"
    );
    let status = b
        .run(
            &["--format", "json", "reasoning", "status", "--task", &task],
            "",
        )
        .success()
        .json();
    assert_eq!(status["consultations"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_decision_of_another_task_is_reused_and_new_evidence_names_what_it_supersedes() {
    let b = Bench::new(CATALOGUE);
    let assess = |subject: &str, new_evidence: bool| {
        let mut a = json!({"kind": "assessment", "subject": subject, "materiality": "low",
            "confidence": "medium", "hypothesis": "The ledger lock serialises writers"});
        if new_evidence {
            a["new_evidence"] = json!(true);
        }
        id_of(&b.record(a))
    };
    let task = |description: &str| {
        let started = b
            .run(&["--format", "json", "task", "start", description], "")
            .success()
            .json();
        started["task"]["id"]
            .as_str()
            .expect("a task id")
            .to_owned()
    };
    // The first task decides.
    task("Speed up ingest");
    let first = assess("Why is ingest slow?", false);
    let decided = id_of(&b.record(json!({"kind": "conclusion", "assessment": first,
        "decision": "Shard the ledger lock", "rationale": "the bench shows lock waits"})));
    b.run(&["task", "finish"], "").success();
    // Another task, in another episode, asks the same question again.
    b.run(&["session", "close"], "").success();
    b.run(&["session", "start"], "").success();
    task("Ingest, part two");
    let again = assess("why is INGEST slow", false);
    let planned = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--assessment",
                &again,
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(planned["decision"]["reuses"], decided.as_str(), "{planned}");
    assert_eq!(planned["decision"]["selected"], json!([]));

    // New evidence reopens it: the new conclusion names the other task's.
    let reopened = assess("Why is ingest slow?", true);
    let planned = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--assessment",
                &reopened,
            ],
            "",
        )
        .success()
        .json();
    assert!(planned["decision"]["reuses"].is_null(), "{planned}");
    let conclusion = json!({"kind": "conclusion", "assessment": reopened,
        "decision": "Batch the appends", "rationale": "the new profile shows syscalls"});
    let error = b.refused(conclusion.clone(), "reasoning.conclusion-supersedes");
    let fix = format!(
        "add \"supersedes\": \"{decided}\" (majordomus reasoning explain {decided} shows what it decided)"
    );
    assert_eq!(error["fix"], fix.as_str(), "{error}");
    // The fix, done as it says.
    let mut superseding = conclusion;
    superseding["supersedes"] = json!(decided);
    let concluded = b.record(superseding);
    assert_eq!(concluded["supersedes"], decided.as_str());
    b.run(&["reasoning", "explain", &decided], "").success();
    // The new conclusion is what stands now, for any later task.
    let later = assess("Why is ingest slow", false);
    let planned = b
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "plan",
                "--assessment",
                &later,
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(planned["decision"]["reuses"], concluded["id"], "{planned}");
}

/// The rule file that declares advisors optional, with the given exceptions block.
fn advisors_optional(exceptions: &str) -> String {
    format!(
        "rules:\n  - id: project.advisors-are-optional\n    severity: blocking\n    description: Advisors are optional.\n{exceptions}"
    )
}

#[test]
fn reasoning_check_reads_every_tracked_source_and_hook_managers_as_gates() {
    let b = Bench::new(
        "advisors:\n  - id: oracle\n    title: Oracle\n    adapter: process\n    provider: oracle-labs\n    executable: oracle-cli\n    credential: ORACLE_API_KEY\n    capabilities: [independent_reasoning]\n",
    );
    let repo = &b.repo;
    repo.write(
        ".ai/repo/rules/project/advisors.yaml",
        &advisors_optional(
            "    exceptions:\n      - path: src/setup/\n        because: setup installs the hooks of the agent clients it names\n",
        ),
    );
    repo.write("tests/review.rs", "// asks oracle-cli for a review\n");
    repo.write("scripts/review.sh", "#!/bin/sh\noracle-cli --json\n");
    repo.write(
        "src/setup/clients.rs",
        "// oracle-cli reads its hooks here\n",
    );
    repo.write(
        "docs/ADVISORS.md",
        "Install oracle-cli to get a second opinion.\n",
    );
    repo.write(".husky/pre-push", "#!/bin/sh\nexport ORACLE_API_KEY\n");
    repo.write(".pre-commit-config.yaml", "env: [ORACLE_API_KEY]\n");
    repo.write("lefthook.yml", "pre-push:\n  env: ORACLE_API_KEY\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Review with an advisor"]);
    let run = repo.run(&["--format", "json", "reasoning", "check"]);
    assert_eq!(run.code(), 3, "{run}");
    let report = run.json();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().expect("file").to_owned(),
                f["rule"].as_str().expect("rule").to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        (".husky/pre-push:2", "reasoning.ci-credential"),
        (".pre-commit-config.yaml:1", "reasoning.ci-credential"),
        ("lefthook.yml:2", "reasoning.ci-credential"),
        ("scripts/review.sh:2", "reasoning.provider-independent"),
        ("tests/review.rs:1", "reasoning.provider-independent"),
    ]
    .iter()
    .map(|(f, r)| ((*f).to_owned(), (*r).to_owned()))
    .collect();
    assert_eq!(found, expected, "{report}");
    assert_eq!(
        report["exceptions"],
        json!([{"path": "src/setup/", "because": "setup installs the hooks of the agent clients it names", "files": 1}])
    );
    // Doctor says what it read and what the rule excepts.
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    let rule = doctor["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == "project.advisors-are-optional")
        .expect("the declared rule ran")
        .clone();
    assert!(
        rule["note"]
            .as_str()
            .is_some_and(|n| n.contains("1 file(s) under 1 declared exception(s)")),
        "{rule}"
    );
    // An exception without its reason is refused where the rule set is read.
    repo.write(
        ".ai/repo/rules/project/advisors.yaml",
        &advisors_optional("    exceptions:\n      - path: tests/\n        because: \"\"\n"),
    );
    let doctor = repo.run(&["--format", "json", "doctor"]).json();
    assert!(
        doctor
            .to_string()
            .contains("an exception names a path and says why"),
        "{doctor}"
    );
}

#[test]
fn reasoning_check_runs_clean_on_the_majordomus_repository_itself() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(manifest)
        .output()
        .expect("git ls-files");
    assert!(
        out.status.success(),
        "git ls-files in {}",
        manifest.display()
    );
    let repo = TestRepo::initialised();
    let mut copied = Vec::new();
    for path in String::from_utf8(out.stdout)
        .expect("UTF-8 paths")
        .split('\0')
    {
        let from = manifest.join(path);
        // The test's own repository keeps its skeleton: only the crate's files are copied.
        if path.is_empty() || !from.is_file() || path == ".gitignore" {
            continue;
        }
        let to = repo.root().join(path);
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(&from, &to).expect("copy");
        copied.push(path.to_owned());
    }
    assert!(
        copied
            .iter()
            .any(|p| p == ".ai/repo/rules/project/advisors.yaml"),
        "the majordomus repository declares project.advisors-are-optional"
    );
    let list = repo.base().join("copied.txt");
    std::fs::write(&list, copied.join("\n")).expect("write the list");
    repo.git(&["add", &format!("--pathspec-from-file={}", list.display())]);
    repo.git(&["commit", "-q", "-m", "majordomus itself"]);
    let run = repo.run(&["--format", "json", "reasoning", "check"]);
    let report = run.json();
    assert_eq!(report["declared"], true, "{run}");
    assert_eq!(report["findings"], json!([]), "{run}");
    assert_eq!(run.code(), 0, "{run}");
    assert!(
        report["sources"].as_u64().is_some_and(|n| n > 200),
        "tests, benches, fixtures and hooks are read, not only src/: {report}"
    );
    for exception in report["exceptions"].as_array().expect("exceptions") {
        assert!(
            exception["files"].as_u64().is_some_and(|n| n > 0),
            "an exception that covers nothing is stale: {exception}"
        );
    }
}

#[test]
fn record_refuses_a_task_this_checkout_never_started() {
    let bench = Bench::new(CATALOGUE);
    let record = json!({
        "kind": "assessment", "subject": "s", "materiality": "low", "confidence": "low",
        "hypothesis": "h", "evidence": ["observation:seen"],
    })
    .to_string();
    let error = bench
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "record",
                "--task",
                "t-20990101-ffff",
            ],
            &record,
        )
        .json_error(3, "task.known");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("t-20990101-ffff")),
        "{error}"
    );
    assert!(
        !bench
            .repo
            .exists(".ai/local/state/reasoning/t-20990101-ffff"),
        "a folder was made for a task nobody started"
    );
    // The same for the reads, and for an episode this ledger never opened.
    bench
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "status",
                "--task",
                "t-20990101-ffff",
            ],
            "",
        )
        .json_error(3, "task.known");
    bench
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "status",
                "--task",
                "_episode-20990101T000000Z-ffffff",
            ],
            "",
        )
        .json_error(3, "knowledge.episode");
    // A task this checkout started is accepted.
    let task = bench
        .run(
            &["--format", "json", "task", "start", "Speed up ingest"],
            "",
        )
        .success()
        .json()["task"]["id"]
        .as_str()
        .expect("a task id")
        .to_owned();
    bench.run(&["task", "finish"], "").success();
    bench
        .run(
            &["--format", "json", "reasoning", "record", "--task", &task],
            &record,
        )
        .success();
}

#[test]
fn the_records_of_a_closed_episode_are_reached_by_its_folder_name() {
    let bench = Bench::new(CATALOGUE);
    let episode = bench.repo.episode_id();
    let assessment = bench.assessment("low");
    bench.run(&["session", "close"], "").success();
    let folder = format!("_episode-{episode}");
    let status = bench
        .run(
            &["--format", "json", "reasoning", "status", "--task", &folder],
            "",
        )
        .success()
        .json();
    assert_eq!(status["folder"], folder.as_str());
    assert!(status.to_string().contains(&assessment), "{status}");
    // A record for it goes to the same folder, with no episode open.
    let written = bench
        .run(
            &["--format", "json", "reasoning", "record", "--task", &folder],
            &json!({
                "kind": "attempt", "assessment": assessment, "tried": "a bigger buffer",
                "failure": "no change", "invalidated_assumption": "I/O bound",
                "updated_hypothesis": "the lock",
            })
            .to_string(),
        )
        .success()
        .json();
    assert_eq!(written["task"], folder.as_str());
    // A folder name that is neither shape stays refused by its shape.
    bench
        .run(
            &[
                "--format",
                "json",
                "reasoning",
                "status",
                "--task",
                "_episode-../x",
            ],
            "",
        )
        .json_error(3, "id.shape");
}

/// `reasoning advisors` says, for each capability an advisor offers, how many advisors
/// offer it and how many of them a plan may select now, in text and JSON.
#[test]
fn reasoning_advisors_reports_capacity_per_capability() {
    let b = Bench::new(CATALOGUE);
    let json = b
        .repo
        .run_env(
            &["--format", "json", "reasoning", "advisors"],
            &[
                ("MAJORDOMUS_REASONING_MODE", "standard"),
                ("MAJORDOMUS_ADVISORS_DISABLE", "beta"),
            ],
            "",
        )
        .success()
        .json();
    assert_eq!(
        json["capacity"],
        json!([
            {"capability": "code_review", "offered_by": 1, "admissible": 0},
            {"capability": "independent_reasoning", "offered_by": 3, "admissible": 2},
        ]),
        "{json}"
    );
    let run = b
        .repo
        .run_env(
            &["reasoning", "advisors"],
            &[
                ("MAJORDOMUS_REASONING_MODE", "standard"),
                ("MAJORDOMUS_ADVISORS_DISABLE", "beta"),
            ],
            "",
        )
        .success();
    assert!(
        run.stdout().ends_with(
            "capacity code_review: 1 advisor(s) offer it, 0 admissible now\n\
             capacity independent_reasoning: 3 advisor(s) offer it, 2 admissible now\n"
        ),
        "{run}"
    );
}

/// `project.review-is-recorded-not-claimed`: doctor shows it where a project declares it;
/// its check is the writer's refusals (asked again) and every stored conclusion's review
/// against the consultations it cites, so a count edited into a record is a finding.
#[test]
fn review_is_recorded_not_claimed_is_a_rule_doctor_runs() {
    let b = Bench::new(CATALOGUE);
    // Not declared (an adopter): doctor does not run it.
    let report = b.repo.run(&["--format", "json", "doctor"]).success().json();
    assert!(
        !report
            .to_string()
            .contains("project.review-is-recorded-not-claimed"),
        "{report}"
    );
    b.repo.write(
        ".ai/repo/rules/project/review.yaml",
        "rules:\n  - id: project.review-is-recorded-not-claimed\n    severity: blocking\n    description: A review is recorded, never claimed.\n",
    );
    let low = b.record(json!({"kind": "assessment", "subject": "naming", "materiality": "low", "confidence": "high", "hypothesis": "h"}))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // The writer refuses a claimed review, by its rule.
    b.refused(
        json!({"kind": "conclusion", "assessment": low, "decision": "d", "rationale": "r", "independent_review_count": 2}),
        "reasoning.computed-field",
    );
    let written = b.record(
        json!({"kind": "conclusion", "assessment": low, "decision": "d", "rationale": "r"}),
    );
    let run = b.run(&["doctor"], "").success();
    assert!(
        run.stdout().contains(
            "ok   project.review-is-recorded-not-claimed\n     the writer refuses 4 caller-supplied review field(s) and record kind(s); 1 stored conclusion(s) read, none claiming more review than its cited consultations hold\n"
        ),
        "{run}"
    );

    // A count edited into the stored record is a claim nobody recorded.
    let path = written["path"].as_str().expect("path").to_owned();
    let text = b.repo.read(&path);
    let mut stored: Value = serde_json::from_str(&text).expect("a stored record");
    stored["independent_review_count"] = json!(2);
    stored["reviewed_by"] = json!(["alpha", "beta"]);
    b.repo.write(&path, &stored.to_string());
    let report = b
        .run(&["--format", "json", "doctor"], "")
        .expect_code(10)
        .json();
    let rule = crate::doctor::rule(&report, "project.review-is-recorded-not-claimed");
    assert_eq!(rule["status"], "fail", "{rule}");
    let finding = &rule["findings"][0];
    assert_eq!(finding["file"], path.as_str(), "{finding}");
    assert_eq!(finding["severity"], "blocking", "{finding}");
    assert!(
        finding["message"].as_str().is_some_and(|m| m.contains(
            "says it was reviewed by `alpha`, but none of the completed consultations it cites is that advisor's"
        )),
        "{finding}"
    );
    // A count alone, with no name behind it.
    stored["reviewed_by"] = json!([]);
    stored["independent_review_count"] = json!(1);
    b.repo.write(&path, &stored.to_string());
    let report = b
        .run(&["--format", "json", "doctor"], "")
        .expect_code(10)
        .json();
    let rule = crate::doctor::rule(&report, "project.review-is-recorded-not-claimed");
    assert!(
        rule["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with(
                "claims 1 independent review(s), but the completed consultations it cites are 0"
            )),
        "{rule}"
    );
}
