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
    let started = Instant::now();
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
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
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
    let started = Instant::now();
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
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
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
    while running() && settled.elapsed() < Duration::from_secs(2) {
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
    for (path, (bytes, _)) in b.repo.files() {
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
    repo.write("src/lib.rs", "// calls claude directly\n");
    repo.write(
        ".github/workflows/ci.yml",
        "env:\n  ANTHROPIC_API_KEY: ${{ secrets.KEY }}\n",
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
    while !marker.exists() && started.elapsed() < Duration::from_secs(20) {
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
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
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
    while running() && settled.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(), "the cancelled advisor's child survived");
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
